import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Mailbox } from "./mailbox.js";

/** What the contract needs besides the port: the upstream's side of the table. */
export interface MailboxHarness {
  readonly mailbox: Mailbox;
  /** Inserts and commits a row as the upstream would. */
  insert(raw: string, options?: { readonly status?: string }): Promise<number>;
  /** `DATE_PROCESSED` (epoch ms), null when not backfilled, undefined when there is no row. */
  processedAt(msgId: number): Promise<number | null | undefined>;
  /** The `SUBSYSTEM_*` columns of a row. */
  subsystem(msgId: number): Promise<{ name: string | null; sequence: number | null; type: string | null; subtype: string | null }>;
  /** Deletes a row (the upstream's retention). */
  remove(msgId: number): Promise<void>;
  close(): Promise<void>;
}

export interface MailboxFeatures {
  /** The harness's mailbox was built with the `STATUS = 'VALID'` filter on. */
  readonly statusFilter?: boolean;
  /** Storage keeps `DATE_PROCESSED` to this precision (MySQL DATETIME: 1000 ms). */
  readonly timePrecisionMs?: number;
}

const meta = { sndr: "AODB", seqn: 480211, dttm: "20260305020000", type: "SCHD", styp: "DNLD" };

/** The behaviour every `Mailbox` must show. Run it against the fake and each real adapter. */
export function describeMailboxContract(
  name: string,
  factory: () => Promise<MailboxHarness>,
  features: MailboxFeatures = {},
): void {
  const precision = features.timePrecisionMs ?? 1;
  describe(`Mailbox contract: ${name}`, () => {
    let h: MailboxHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => {
      await h.close();
    });

    it("scans committed rows above an id, ascending, bounded", async () => {
      const ids = [await h.insert("<a/>"), await h.insert("<b/>"), await h.insert("<c/>")];
      const all = await h.mailbox.scan(0, 10);
      expect(all.map((r) => r.msgId)).toEqual(ids);
      expect(all.every((r) => r.pending)).toBe(true);
      expect((await h.mailbox.scan(ids[0]!, 1)).map((r) => r.msgId)).toEqual([ids[1]]);
      expect(await h.mailbox.scan(ids[2]!, 10)).toEqual([]);
    });

    it("reads raw text exactly, and says 'not found' only for a missing row", async () => {
      const text = `<MSG>${"ü€𝄞".repeat(1000)}${"x".repeat(300_000)}</MSG>`;
      const id = await h.insert(text);
      const gone = await h.insert("<gone/>");
      await h.remove(gone);
      const raws = await h.mailbox.readRaw([id, gone, gone + 1000]);
      expect(raws.get(id)).toEqual({ found: true, text });
      expect(raws.get(gone)).toEqual({ found: false });
      expect(raws.get(gone + 1000)).toEqual({ found: false });
    });

    it("backfills DATE_PROCESSED and the SUBSYSTEM columns once, idempotently", async () => {
      const id = await h.insert("<x/>");
      const at = Date.UTC(2026, 2, 5, 2, 0, 7);
      const first = await h.mailbox.backfill([{ msgId: id, processedAt: at, meta }]);
      expect(first.written).toEqual([id]);
      expect(Math.abs((await h.processedAt(id))! - at)).toBeLessThan(precision);
      expect(await h.subsystem(id)).toEqual({ name: "AODB", sequence: 480211, type: "SCHD", subtype: "DNLD" });
      const second = await h.mailbox.backfill([{ msgId: id, processedAt: at + 60_000, meta }]);
      expect(second.written).toEqual([]);
      expect(second.alreadyDone).toEqual([id]);
      expect(Math.abs((await h.processedAt(id))! - at)).toBeLessThan(precision);
      expect((await h.mailbox.scan(id - 1, 1))[0]?.pending).toBe(false);
    });

    it("backfills many rows in one call, and rows without META", async () => {
      const ids: number[] = [];
      for (let i = 0; i < 120; i++) ids.push(await h.insert(`<m n="${i}"/>`));
      const at = Date.UTC(2026, 2, 5, 3, 0, 0);
      const result = await h.mailbox.backfill(ids.map((msgId, i) => ({ msgId, processedAt: at, meta: i % 2 ? null : { ...meta, seqn: i } })));
      expect([...result.written].sort((a, b) => a - b)).toEqual(ids);
      expect(await h.subsystem(ids[1]!)).toEqual({ name: null, sequence: null, type: null, subtype: null });
      expect((await h.subsystem(ids[2]!)).sequence).toBe(2);
    });

    it("reports a META value that does not fit its column as a defect and never truncates it", async () => {
      const id = await h.insert("<x/>");
      const result = await h.mailbox.backfill([{ msgId: id, processedAt: Date.UTC(2026, 0, 1), meta: { ...meta, sndr: "TOOLONG" } }]);
      expect(result.defects.map((d) => d.msgId)).toEqual([id]);
      expect(await h.processedAt(id)).not.toBeNull();
      expect((await h.subsystem(id)).name).toBeNull();
    });

    it("follows the one SUBSYSTEM_* column rule (subsystemValues): characters not UTF-16 units, the sequence range, a real DTTM", async () => {
      const at = Date.UTC(2026, 0, 1);
      const [wide, low, badDate] = [await h.insert("<a/>"), await h.insert("<b/>"), await h.insert("<c/>")];
      const result = await h.mailbox.backfill([
        { msgId: wide, processedAt: at, meta: { ...meta, sndr: "ÄÖÜß", styp: "😀😀😀😀" } }, // four characters each, eight UTF-16 units in styp
        { msgId: low, processedAt: at, meta: { ...meta, seqn: -8_388_609 } },
        { msgId: badDate, processedAt: at, meta: { ...meta, dttm: "20260229000000" } },
      ]);
      expect(result.defects.map((d) => d.msgId).sort((a, b) => a - b)).toEqual([low, badDate]);
      expect(await h.subsystem(wide)).toEqual({ name: "ÄÖÜß", sequence: meta.seqn, type: meta.type, subtype: "😀😀😀😀" });
      expect((await h.subsystem(low)).sequence).toBeNull();
      expect((await h.subsystem(badDate)).name).toBeNull();
    });

    it("appends a row and returns its committed id", async () => {
      const before = await h.insert("<first/>");
      const id = await h.mailbox.append("<MSG>appended</MSG>");
      expect(id).toBeGreaterThan(before);
      expect((await h.mailbox.scan(before, 10)).map((r) => r.msgId)).toEqual([id]);
      expect((await h.mailbox.readRaw([id])).get(id)).toEqual({ found: true, text: "<MSG>appended</MSG>" });
    });

    if (features.statusFilter) {
      it("marks rows whose STATUS is not VALID as not pending, but still returns them", async () => {
        const valid = await h.insert("<v/>", { status: "VALID" });
        const other = await h.insert("<o/>", { status: "HOLD" });
        const rows = await h.mailbox.scan(valid - 1, 10);
        expect(rows.map((r) => [r.msgId, r.pending])).toEqual([
          [valid, true],
          [other, false],
        ]);
      });
    }
  });
}
