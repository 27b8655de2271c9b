import { describe, expect, it } from "vitest";
import { inLineage, lineagePage, type LineageEventRow } from "../../src/lineage/lineage-page.js";
import { ProcStatus, type ProcRecord } from "../../src/model/proc-record.js";
import { DeliveryStatus, EventType, Target } from "../../src/outbox/outbox-event.js";
import { newProcRecord } from "../../src/processing/proc-machine.js";

const row = (eventId: number, stateVersion: number, payload: unknown, extra: Partial<LineageEventRow> = {}): LineageEventRow => ({
  eventId,
  target: Target.MSG,
  eventType: EventType.UPSERT,
  stateVersion,
  payload,
  sourceMsgId: 100 + stateVersion,
  status: DeliveryStatus.PENDING,
  sentAt: null,
  createdAt: 1_000 * eventId,
  ...extra,
});

const record = (msgId: number): ProcRecord => ({
  ...newProcRecord(msgId, 0, 0),
  status: ProcStatus.SUCCEEDED,
  meta: { sndr: "AODB", seqn: msgId, dttm: "20260305064210", type: "FLOP", styp: "GTDT" },
});

describe("lineagePage", () => {
  it("groups rows by version, newest first, events ascending, `at` the first event's time", () => {
    const page = lineagePage([row(4, 2, { g: "B" }, { target: Target.SCHD }), row(1, 1, { g: "A" }), row(3, 2, { g: "B" }), row(2, 1, { g: "A" }, { target: Target.SCHD })], record, 10);
    expect(page.next).toBeNull();
    expect(page.versions.map((v) => [v.version, v.at, v.events.map((e) => e.eventId)])).toStrictEqual([
      [2, 3_000, [3, 4]],
      [1, 1_000, [1, 2]],
    ]);
    expect(page.versions[0]!.changes).toStrictEqual([{ field: "g", before: "A", after: "B" }]);
    expect(page.versions[1]!.changes).toStrictEqual([{ field: "g", after: "A" }]);
  });

  it("the source is the record's META and state; null when no record is found", () => {
    const found = lineagePage([row(1, 7, {})], record, 5).versions[0]!;
    expect(found.source).toStrictEqual({ msgId: 107, type: "FLOP", subtype: "GTDT", dttm: "20260305064210", status: "SUCCEEDED", errorClass: null });
    expect(lineagePage([row(1, 7, {})], () => undefined, 5).versions[0]!.source).toBeNull();
    const undecoded = lineagePage([row(1, 7, {})], (id) => ({ ...record(id), meta: null, status: ProcStatus.DEAD, errorClass: "CODEC_ERROR" }), 5);
    expect(undecoded.versions[0]!.source).toStrictEqual({ msgId: 107, type: null, subtype: null, dttm: null, status: "DEAD", errorClass: "CODEC_ERROR" });
  });

  it("gives each event its placement, null when it has none (unsent, or a store that does not record it)", () => {
    const page = lineagePage(
      [
        row(1, 1, {}, { status: DeliveryStatus.SENT, sentAt: 5_000, placement: { partition: 2, offset: 41 } }),
        row(2, 1, {}, { target: Target.SCHD, placement: null }),
        row(3, 1, {}, { target: "KAFKA:other" }),
      ],
      record,
      5,
    );
    expect(page.versions[0]!.events.map((e) => [e.target, e.status, e.sentAt, e.partition, e.offset])).toStrictEqual([
      [Target.MSG, "SENT", 5_000, 2, 41],
      [Target.SCHD, "PENDING", null, null, null],
      ["KAFKA:other", "PENDING", null, null, null],
    ]);
  });

  it("takes a version's value from its first event that has a payload (a schd tombstone's null does not hide the change stream's state)", () => {
    const page = lineagePage([row(1, 1, { deleted: false }), row(2, 2, null, { target: Target.SCHD }), row(3, 2, { deleted: true })], record, 5);
    expect(page.versions[0]!.changes).toStrictEqual([{ field: "deleted", before: false, after: true }]);
    const gone = lineagePage([row(1, 1, { NAME: "x" }, { target: Target.REF }), row(2, 2, null, { target: Target.REF, eventType: EventType.TOMBSTONE })], record, 5);
    expect(gone.versions[0]!.changes).toStrictEqual([{ field: "NAME", before: "x" }]);
  });

  it("lists at most `limit` versions; the one past the page gives the oldest one's changes and `next`", () => {
    const rows = [1, 2, 3, 4, 5].map((v) => row(v, v, { n: v }));
    const page = lineagePage(rows, record, 2);
    expect(page.versions.map((v) => v.version)).toStrictEqual([5, 4]);
    expect(page.next).toBe(4);
    expect(page.versions[1]!.changes).toStrictEqual([{ field: "n", before: 3, after: 4 }]);
    expect(lineagePage(rows.slice(0, 2), record, 2).next).toBeNull();
  });

  it("an empty row set is an empty page", () => {
    expect(lineagePage([], record, 5)).toStrictEqual({ versions: [], next: null });
  });
});

describe("inLineage", () => {
  const e = { partitionKey: "900101", sourceMsgId: 5, stateVersion: 3 };
  it("selects the key's rows a mailbox message caused, below beforeVersion", () => {
    expect(inLineage(e, "900101")).toBe(true);
    expect(inLineage(e, "900102")).toBe(false);
    expect(inLineage({ ...e, sourceMsgId: 0 }, "900101")).toBe(false);
    expect(inLineage(e, "900101", 4)).toBe(true);
    expect(inLineage(e, "900101", 3)).toBe(false);
  });
});
