/**
 * Properties of `lineagePage` over random histories of one key: versions strictly descending,
 * every event in exactly one version (across pages of any size), pages that do not change what a
 * version shows, and a diff chain that, applied from nothing, rebuilds the newest value.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { lineagePage, type LineageEventRow } from "../../src/lineage/lineage-page.js";
import type { LineagePage, LineageVersion } from "../../src/lineage/lineage-reader.js";
import type { FieldChange } from "../../src/model/field-diff.js";
import { ProcStatus, type ProcRecord } from "../../src/model/proc-record.js";
import { DeliveryStatus, EventType, Target } from "../../src/outbox/outbox-event.js";
import { newProcRecord } from "../../src/processing/proc-machine.js";

const key = fc.constantFrom("a", "b", "gate", "estt", "rows");
const leaf = fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -5, max: 5 }), fc.constant(null), fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 2 }));
const value = fc.dictionary(key, fc.oneof(leaf, fc.dictionary(key, fc.oneof(leaf, fc.dictionary(key, leaf, { maxKeys: 2 })), { maxKeys: 3 })), { maxKeys: 5 });

/** A key's history: versions ascending with gaps, each with 1–3 events in commit order; a version's value may be null (a delete). */
const history = fc
  .array(
    fc.record({
      gap: fc.integer({ min: 1, max: 3 }),
      value: fc.option(value, { freq: 6 }),
      targets: fc.integer({ min: 1, max: 3 }),
      firstHasPayload: fc.boolean(),
      sourceKnown: fc.boolean(),
    }),
    { minLength: 0, maxLength: 25 },
  )
  .map((versions) => {
    let version = 0;
    let eventId = 0;
    const rows: LineageEventRow[] = [];
    const records = new Map<number, ProcRecord>();
    const latest: { value: unknown } = { value: null };
    for (const v of versions) {
      version += v.gap;
      const msgId = 1000 + version;
      if (v.sourceKnown) records.set(msgId, { ...newProcRecord(msgId, 0, 0), status: ProcStatus.SUCCEEDED });
      for (let t = 0; t < v.targets; t++) {
        // The value event may come second (after a null-payload event), never after a different value.
        const payload = t === 0 && !v.firstHasPayload && v.targets > 1 ? null : v.value;
        rows.push({ eventId: ++eventId, target: [Target.MSG, Target.SCHD, Target.REF][t]!, eventType: EventType.UPSERT, stateVersion: version, payload, sourceMsgId: msgId, status: DeliveryStatus.PENDING, sentAt: null, createdAt: eventId });
      }
      latest.value = v.value;
    }
    return { rows, records, latest: latest.value };
  });

/** Every page of the lineage, paged with `next` as a caller would (rows below `before` each time). */
function allPages(rows: readonly LineageEventRow[], records: ReadonlyMap<number, ProcRecord>, limit: number): LineagePage[] {
  const pages: LineagePage[] = [];
  let before: number | undefined;
  do {
    const page = lineagePage(rows.filter((r) => before === undefined || r.stateVersion < before), (id) => records.get(id), limit);
    pages.push(page);
    before = page.next ?? undefined;
  } while (before !== undefined);
  return pages;
}

function applyChanges(target: Record<string, unknown>, changes: readonly FieldChange[]): void {
  for (const c of changes) {
    const path = c.field.split(".");
    let node = target;
    for (const step of path.slice(0, -1)) {
      const next = node[step];
      node = (typeof next === "object" && next !== null && !Array.isArray(next) ? next : (node[step] = {})) as Record<string, unknown>;
    }
    if ("after" in c) node[path.at(-1)!] = structuredClone(c.after);
    else delete node[path.at(-1)!];
  }
}

/** The value without empty objects: `fieldDiff` reports leaves, so an object with no fields never shows as a change. */
function pruned(v: unknown): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return v;
  const kept = Object.entries(v).map(([k, x]) => [k, pruned(x)] as const).filter(([, x]) => !(typeof x === "object" && x !== null && !Array.isArray(x) && Object.keys(x).length === 0));
  return Object.fromEntries(kept);
}

describe("lineagePage properties", () => {
  it("versions strictly descending; every event in exactly one version, of its own stateVersion; pages of any size agree", () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 8 }), ({ rows, records }, limit) => {
        const pages = allPages(rows, records, limit);
        const listed: LineageVersion[] = pages.flatMap((p) => p.versions);
        for (const p of pages) expect(p.versions.length).toBeLessThanOrEqual(limit);
        const versions = listed.map((v) => v.version);
        expect(versions.every((v, i) => i === 0 || v < versions[i - 1]!)).toBe(true);
        const placed = listed.flatMap((v) => v.events.map((e) => [e.eventId, v.version] as const));
        expect(placed.map(([id]) => id).sort((a, b) => a - b)).toStrictEqual(rows.map((r) => r.eventId));
        for (const [id, version] of placed) expect(rows.find((r) => r.eventId === id)!.stateVersion).toBe(version);
        expect(listed).toStrictEqual(lineagePage(rows, (id) => records.get(id), 500).versions);
      }),
      { numRuns: 300 },
    );
  });

  it("the diff chain applied from nothing, oldest version first, rebuilds the newest value", () => {
    fc.assert(
      fc.property(history, fc.integer({ min: 1, max: 8 }), ({ rows, records, latest }, limit) => {
        const listed = allPages(rows, records, limit).flatMap((p) => p.versions);
        const rebuilt: Record<string, unknown> = {};
        for (const v of [...listed].reverse()) applyChanges(rebuilt, v.changes);
        expect(pruned(rebuilt)).toEqual(pruned(latest ?? {}));
      }),
      { numRuns: 300 },
    );
  });
});
