import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { MaintenanceStore } from "../jobs/maintenance-store.js";
import type { Meta } from "../model/meta.js";
import { ProcStatus, type ProcRecord } from "../model/proc-record.js";
import { EventType, Target, type OutboxEventDraft } from "../outbox/outbox-event.js";
import type { OutboxStore } from "../delivery/outbox-store.js";
import type { PipelineStore } from "../processing/pipeline-store.js";
import { newProcRecord } from "../processing/proc-machine.js";
import { emptyRunDecision } from "../processing/run-decision.js";
import type { LineagePage, LineageReader } from "./lineage-reader.js";

/** One fresh, empty database per test: the reader and the ports that write what it reads. */
export interface LineageReaderFixture {
  readonly reader: LineageReader;
  /** Writes the records and events, as the pump does. */
  readonly store: PipelineStore;
  /** Settles the events, as the relay does. */
  readonly outbox: OutboxStore;
  /** Archives records to `PROC_STATE_HST`, as the archiver does. */
  readonly maintenance: MaintenanceStore;
  close(): Promise<void>;
}

const T0 = Date.UTC(2026, 2, 5, 8, 0, 0);
const FLID = "900101";

const meta = (msgId: number, type: string, styp: string): Meta => ({ sndr: "AODB", seqn: msgId, dttm: `202603050${String(msgId % 10)}0000`, type, styp });

/** A flight-shaped value (the reader compares values whatever their shape). */
const flight = (version: number, msgId: number, fields: Record<string, string | null>, deleted = false) => ({
  schemaVersion: 2,
  flid: FLID,
  stateVersion: version,
  deleted,
  lastMsgId: msgId,
  fields,
  collections: { GTDT: [{ key: "1", values: { GATE: fields["GATE"] ?? null } }] },
});

/** The two events of one flight version, change stream first (as `flightEvents` writes them). */
const flightDrafts = (version: number, msgId: number, fields: Record<string, string | null>, deleted = false): OutboxEventDraft[] => {
  const value = flight(version, msgId, fields, deleted);
  const eventType = deleted ? EventType.TOMBSTONE : EventType.UPSERT;
  const common = { partitionKey: FLID, eventType, stateVersion: version, sourceMsgId: msgId, traceparent: null };
  return [
    { ...common, target: Target.MSG, payload: value },
    { ...common, target: Target.SCHD, payload: deleted ? null : value },
  ];
};

/**
 * The behaviour every {@link LineageReader} must show (see its guarantees). The in-memory fake runs
 * it in a unit spec; each adapter runs it against its real database.
 */
export function describeLineageReaderContract(name: string, factory: () => Promise<LineageReaderFixture>): void {
  describe(`LineageReader contract: ${name}`, () => {
    let fx: LineageReaderFixture;
    beforeEach(async () => {
      fx = await factory();
    });
    afterEach(async () => {
      await fx.close();
    });

    /** Commits message `msgId` SUCCEEDED (or `status`) with its META and the events it wrote, as one pipeline run. */
    const processed = async (msgId: number, m: Meta, events: readonly OutboxEventDraft[], status: ProcStatus = ProcStatus.SUCCEEDED) => {
      await fx.store.enqueue([{ msgId, receivedAt: T0 }], { horizon: msgId });
      const record: ProcRecord = { ...newProcRecord(msgId, T0, T0), status, meta: m, identityKey: `AODB|${m.type}|${m.styp}|${msgId}`, ...(status === ProcStatus.DEAD ? { errorClass: "EXHAUSTED" as const } : {}) };
      await fx.store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, records: [record], events }));
    };

    /** Five versions of one flight: create, three gate changes (one by a message later DEAD on replay), delete. */
    const fiveVersions = async () => {
      await processed(11, meta(11, "SCHD", "DNLD"), flightDrafts(1, 11, { GATE: "A22", ESTT: null }));
      await processed(12, meta(12, "FLOP", "GTDT"), flightDrafts(2, 12, { GATE: "A25", ESTT: null }));
      await processed(13, meta(13, "FLOP", "ESTT"), flightDrafts(3, 13, { GATE: "A25", ESTT: "2026-03-05T08:20" }));
      await processed(14, meta(14, "FLOP", "GTDT"), flightDrafts(4, 14, { GATE: "B02", ESTT: "2026-03-05T08:20" }));
      await processed(15, meta(15, "FLOP", "FDEL"), flightDrafts(5, 15, { GATE: "B02", ESTT: "2026-03-05T08:20" }, true));
    };

    it("an unknown key is an empty page", async () => {
      expect(await fx.reader.flightLineage(FLID, { limit: 10 })).toStrictEqual({ versions: [], next: null });
      expect(await fx.reader.referenceLineage("AIRL", "CA", { limit: 10 })).toStrictEqual({ versions: [], next: null });
    });

    it("lists a flight's versions newest first with the message that made each, its events and what changed", async () => {
      await fiveVersions();
      const page = await fx.reader.flightLineage(FLID, { limit: 50 });
      expect(page.next).toBeNull();
      expect(page.versions.map((v) => v.version)).toStrictEqual([5, 4, 3, 2, 1]);
      const made: [number, string, string][] = [[15, "FLOP", "FDEL"], [14, "FLOP", "GTDT"], [13, "FLOP", "ESTT"], [12, "FLOP", "GTDT"], [11, "SCHD", "DNLD"]];
      expect(page.versions.map((v) => v.source)).toStrictEqual(
        made.map(([msgId, type, subtype]) => ({ msgId, type, subtype, dttm: meta(msgId, type, subtype).dttm, status: "SUCCEEDED", errorClass: null })),
      );
      for (const v of page.versions) {
        expect(v.events.map((e) => [e.target, e.eventType, e.status, e.sentAt, e.partition, e.offset])).toStrictEqual(
          [Target.MSG, Target.SCHD].map((t) => [t, v.version === 5 ? EventType.TOMBSTONE : EventType.UPSERT, "PENDING", null, null, null]),
        );
        expect(v.events[0]!.eventId).toBeLessThan(v.events[1]!.eventId);
        expect(v.at).toBeGreaterThan(0);
      }
      const [v5, v4, v3, v2, v1] = page.versions;
      expect(v2!.changes).toStrictEqual([
        { field: "stateVersion", before: 1, after: 2 },
        { field: "lastMsgId", before: 11, after: 12 },
        { field: "fields.GATE", before: "A22", after: "A25" },
        { field: "collections.GTDT", before: [{ key: "1", values: { GATE: "A22" } }], after: [{ key: "1", values: { GATE: "A25" } }] },
      ]);
      expect(v3!.changes.map((c) => c.field)).toStrictEqual(["stateVersion", "lastMsgId", "fields.ESTT"]);
      expect(v3!.changes[2]).toStrictEqual({ field: "fields.ESTT", before: null, after: "2026-03-05T08:20" });
      expect(v4!.changes.map((c) => c.field)).toStrictEqual(["stateVersion", "lastMsgId", "fields.GATE", "collections.GTDT"]);
      // The tombstone's value is the change stream's full final state, not the schd event's null.
      expect(v5!.changes).toStrictEqual([
        { field: "stateVersion", before: 4, after: 5 },
        { field: "deleted", before: false, after: true },
        { field: "lastMsgId", before: 14, after: 15 },
      ]);
      // The first version is compared with nothing: every field is new.
      expect(v1!.changes.map((c) => c.field)).toStrictEqual(["schemaVersion", "flid", "stateVersion", "deleted", "lastMsgId", "fields.GATE", "fields.ESTT", "collections.GTDT"]);
      expect(v1!.changes.every((c) => !("before" in c))).toBe(true);
    });

    it("pages with beforeVersion: each version once, and the same changes however the lineage is paged", async () => {
      await fiveVersions();
      const whole = await fx.reader.flightLineage(FLID, { limit: 500 });
      const pages: LineagePage[] = [];
      let before: number | undefined;
      do {
        const page = await fx.reader.flightLineage(FLID, { limit: 2, ...(before === undefined ? {} : { beforeVersion: before }) });
        pages.push(page);
        before = page.next ?? undefined;
      } while (before !== undefined);
      expect(pages.map((p) => p.versions.map((v) => v.version))).toStrictEqual([[5, 4], [3, 2], [1]]);
      expect(pages.map((p) => p.next)).toStrictEqual([4, 2, null]);
      expect(pages.flatMap((p) => p.versions)).toStrictEqual(whole.versions);
      expect((await fx.reader.flightLineage(FLID, { limit: 5, beforeVersion: 1 })).versions).toStrictEqual([]);
      expect((await fx.reader.flightLineage(FLID, { limit: 1, beforeVersion: 99 })).versions.map((v) => v.version)).toStrictEqual([5]);
    });

    it("shows each event's delivery as settled: SENT with its time and the broker's placement, DEAD, or still PENDING", async () => {
      await fiveVersions();
      const before = await fx.reader.flightLineage(FLID, { limit: 50 });
      const [v1, v2] = [before.versions.at(-1)!, before.versions.at(-2)!];
      const sentAt = T0 + 5_000;
      await fx.outbox.markSent([v1.events[0]!.eventId, v1.events[1]!.eventId, v2.events[0]!.eventId], sentAt, [{ partition: 2, offset: 40 }, null, { partition: 2, offset: 41 }]);
      await fx.outbox.markDead(v2.events[1]!.eventId, "record too large", 3);
      const after = await fx.reader.flightLineage(FLID, { limit: 50 });
      const delivery = (version: number) => after.versions.find((v) => v.version === version)!.events.map((e) => [e.status, e.sentAt, e.partition, e.offset]);
      expect(delivery(1)).toStrictEqual([
        ["SENT", sentAt, 2, 40],
        ["SENT", sentAt, null, null],
      ]);
      expect(delivery(2)).toStrictEqual([
        ["SENT", sentAt, 2, 41],
        ["DEAD", null, null, null],
      ]);
      expect(delivery(3)).toStrictEqual([
        ["PENDING", null, null, null],
        ["PENDING", null, null, null],
      ]);
      // Delivery moves nothing else.
      const strip = (p: LineagePage) => p.versions.map((v) => ({ ...v, events: v.events.map((e) => e.eventId) }));
      expect(strip(after)).toStrictEqual(strip(before));
    });

    it("leaves out events no mailbox message caused and the events of other keys", async () => {
      await fiveVersions();
      const task: OutboxEventDraft = { target: "KAFKA:task.LMS", partitionKey: FLID, eventType: EventType.UPSERT, stateVersion: 3, payload: { taskId: FLID }, sourceMsgId: 0, traceparent: null };
      const other = flightDrafts(6, 16, { GATE: "C01" }).map((d) => ({ ...d, partitionKey: "900102" }));
      await processed(16, meta(16, "FLOP", "GTDT"), [task, ...other]);
      const page = await fx.reader.flightLineage(FLID, { limit: 50 });
      expect(page.versions.map((v) => v.version)).toStrictEqual([5, 4, 3, 2, 1]);
      expect(page.versions.flatMap((v) => v.events).every((e) => e.target === Target.MSG || e.target === Target.SCHD)).toBe(true);
      expect((await fx.reader.flightLineage("900102", { limit: 50 })).versions.map((v) => [v.version, v.source?.msgId])).toStrictEqual([[6, 16]]);
    });

    it("finds the source of a version in the archive once the record moved there, status and error class as stored", async () => {
      await fiveVersions();
      await processed(17, meta(17, "FLOP", "GTDT"), flightDrafts(6, 17, { GATE: "B09", ESTT: null }), ProcStatus.DEAD);
      const before = await fx.reader.flightLineage(FLID, { limit: 50 });
      expect(before.versions[0]!.source).toMatchObject({ msgId: 17, status: "DEAD", errorClass: "EXHAUSTED" });
      const archived = await fx.maintenance.archiveTerminal({ updatedBefore: T0 + 1, throughMsgId: 16, limit: 100, now: T0 + 60_000 });
      expect(archived).toStrictEqual([11, 12, 13, 14, 15]);
      expect(await fx.reader.flightLineage(FLID, { limit: 50 })).toStrictEqual(before);
    });

    it("a reference entry's lineage is keyed <TYPE>:<KEY>; a delete (no value) lists every field as gone", async () => {
      const ref = (version: number, msgId: number, fields: Record<string, string> | null): OutboxEventDraft => ({
        target: Target.REF,
        partitionKey: "AIRL:CA",
        eventType: fields === null ? EventType.TOMBSTONE : EventType.UPSERT,
        stateVersion: version,
        payload: fields === null ? null : { schemaVersion: 1, type: "AIRL", key: "CA", version, lastMsgId: msgId, fields },
        sourceMsgId: msgId,
        traceparent: null,
      });
      await processed(21, meta(21, "AIRL", "DNLD"), [ref(1, 21, { NAME: "Air China", ICAO: "CCA" })]);
      await processed(22, meta(22, "AIRL", "UPD"), [ref(2, 22, { NAME: "Air China Ltd", ICAO: "CCA" })]);
      await processed(23, meta(23, "AIRL", "DEL"), [ref(3, 23, null)]);
      const page = await fx.reader.referenceLineage("AIRL", "CA", { limit: 10 });
      expect(page.versions.map((v) => [v.version, v.source?.subtype, v.events.map((e) => e.eventType)])).toStrictEqual([
        [3, "DEL", ["TOMBSTONE"]],
        [2, "UPD", ["UPSERT"]],
        [1, "DNLD", ["UPSERT"]],
      ]);
      expect(page.versions[1]!.changes).toStrictEqual([
        { field: "version", before: 1, after: 2 },
        { field: "lastMsgId", before: 21, after: 22 },
        { field: "fields.NAME", before: "Air China", after: "Air China Ltd" },
      ]);
      expect(page.versions[0]!.changes.map((c) => c.field)).toStrictEqual(["schemaVersion", "type", "key", "version", "lastMsgId", "fields.NAME", "fields.ICAO"]);
      expect(page.versions[0]!.changes.every((c) => !("after" in c))).toBe(true);
      expect(await fx.reader.referenceLineage("AIRL", "CX", { limit: 10 })).toStrictEqual({ versions: [], next: null });
      expect(await fx.reader.flightLineage(FLID, { limit: 10 })).toStrictEqual({ versions: [], next: null });
    });

    it("refuses a bad limit, beforeVersion, FLID or reference key with RangeError", async () => {
      for (const limit of [0, -1, 1.5, 501, Number.NaN]) {
        await expect(fx.reader.flightLineage(FLID, { limit })).rejects.toThrow(RangeError);
      }
      for (const beforeVersion of [0, -3, 2.5]) {
        await expect(fx.reader.referenceLineage("AIRL", "CA", { limit: 5, beforeVersion })).rejects.toThrow(RangeError);
      }
      await expect(fx.reader.flightLineage("CA1234", { limit: 5 })).rejects.toThrow(RangeError);
      await expect(fx.reader.referenceLineage("", "CA", { limit: 5 })).rejects.toThrow(RangeError);
      await expect(fx.reader.referenceLineage("AI:RL", "CA", { limit: 5 })).rejects.toThrow(RangeError);
      await expect(fx.reader.referenceLineage("AIRL", "", { limit: 5 })).rejects.toThrow(RangeError);
    });
  });
}
