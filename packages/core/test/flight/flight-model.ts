/**
 * The reference model of flight state for the property tests: the rules of SPEC §2.3 and the
 * processor docs written as plainly as possible, one message at a time, on plain objects. It
 * shares no logic with the processors; only the FLOP matrix (a data table) and the schema lists.
 * The FLOP group rules and the FFID rule are in flop-model.ts.
 */
import { FLOP_MATRIX } from "../../src/model/flop-matrix.js";
import type { FlightState } from "../../src/model/flight-state.js";
import type { CollectionRow, FlightRecord, WireValue } from "../../src/model/flight-record.js";
import { REQUIRED_SCHD_FIELDS } from "../../src/model/flight-schema.js";
import type { FlopBlock } from "../../src/model/flop-block.js";
import { applyFlop, ffidAfter, flopFault } from "./flop-model.js";

export type ModelMessage =
  | {
      readonly kind: "schd";
      readonly styp: "DNLD" | "ADFT" | "ADD" | "UPD" | "RESP";
      readonly recs: number;
      readonly records: readonly FlightRecord[];
      readonly dttm: string;
    }
  | { readonly kind: "schdDel"; readonly recs: number; readonly flids: readonly string[]; readonly dttm: string }
  | { readonly kind: "flop"; readonly styp: string; readonly blocks: readonly FlopBlock[]; readonly dttm: string }
  | { readonly kind: "fdel"; readonly flid: string; readonly ffid: string | null | undefined; readonly dttm: string };

export interface ModelFlight {
  ffid: string | null;
  day: string | null;
  version: number;
  lastMsgId: number;
  lastDttm: string;
  deleted: boolean;
  fields: Record<string, WireValue>;
  colls: Record<string, CollectionRow[]>;
}

export interface ModelOutcome {
  readonly status: "SUCCEEDED" | "SKIPPED" | "DEAD" | "FAILED";
  /** For SKIPPED: `no-flight`, `stale`, `no-request`. */
  readonly reason?: string;
  /** The flights changed, in event order, with their new version and whether deleted. */
  readonly changed: readonly { readonly flid: string; readonly version: number; readonly deleted: boolean }[];
}

/** Row keys as the tables order them: numbers by value first, then other keys by code unit. */
function byKey(a: CollectionRow, b: CollectionRow): number {
  const an = /^\d+$/.test(a.key);
  const bn = /^\d+$/.test(b.key);
  if (an !== bn) return an ? -1 : 1;
  if (an && Number(a.key) !== Number(b.key)) return Number(a.key) - Number(b.key);
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** The operation day of an ISO local SODT with no day-start offset: its date. */
const dayOf = (sodt: string): string => sodt.slice(0, 10).replaceAll("-", "");

function copy(f: ModelFlight): ModelFlight {
  return { ...f, fields: { ...f.fields }, colls: { ...f.colls } };
}

/** Everything but the bookkeeping, with keys sorted and rows in key order, as one string. */
function contentOf(f: ModelFlight): string {
  const sortKeys = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
  const colls = Object.fromEntries(
    Object.entries(f.colls).map(([n, rows]) => [n, [...rows].sort(byKey).map((r) => ({ key: r.key, values: sortKeys(r.values) }))]),
  );
  return JSON.stringify([f.ffid, f.day, f.deleted, sortKeys(f.fields), sortKeys(colls)]);
}

const empty = (): ModelFlight => ({ ffid: null, day: null, version: 0, lastMsgId: 0, lastDttm: "", deleted: false, fields: {}, colls: {} });

export class FlightModel {
  readonly flights = new Map<string, ModelFlight>();

  /** Applies one message (mailbox id `msgId`) and says how it must end. */
  apply(msgId: number, m: ModelMessage): ModelOutcome {
    const next = new Map<string, ModelFlight>();
    const outcome = this.#decide(m, next);
    if (outcome.status !== "SUCCEEDED") return { ...outcome, changed: [] };
    const changed: { flid: string; version: number; deleted: boolean }[] = [];
    for (const [flid, after] of next) {
      const before = this.flights.get(flid);
      if (before !== undefined && contentOf(before) === contentOf(after)) continue;
      after.version = (before?.version ?? 0) + 1;
      after.lastMsgId = msgId;
      after.lastDttm = m.dttm;
      this.flights.set(flid, after);
      changed.push({ flid, version: after.version, deleted: after.deleted });
    }
    return { status: "SUCCEEDED", changed };
  }

  #decide(m: ModelMessage, next: Map<string, ModelFlight>): { status: ModelOutcome["status"]; reason?: string } {
    const live = (flid: string) => {
      const f = this.flights.get(flid);
      return f !== undefined && !f.deleted ? f : undefined;
    };
    const isStale = (flid: string) => {
      const f = this.flights.get(flid);
      return f !== undefined && m.dttm < f.lastDttm;
    };

    if (m.kind === "schdDel") {
      if (m.recs !== m.flids.length || m.flids.length === 0) return { status: "DEAD" };
      if (new Set(m.flids).size !== m.flids.length) return { status: "DEAD" };
      const stored = m.flids.filter((flid) => this.flights.has(flid));
      if (stored.length === 0) return { status: "SKIPPED", reason: "no-flight" };
      const stale = stored.filter((flid) => isStale(flid) && !this.flights.get(flid)!.deleted);
      if (stale.length === stored.length) return { status: "SKIPPED", reason: "stale" };
      for (const flid of stored) {
        const f = live(flid);
        if (f === undefined || isStale(flid)) continue;
        next.set(flid, { ...copy(f), deleted: true });
      }
      return { status: "SUCCEEDED" };
    }

    if (m.kind === "schd") {
      if (m.styp === "RESP") return { status: "SKIPPED", reason: "no-request" };
      if (m.recs !== m.records.length) return { status: "DEAD" };
      if (m.styp !== "DNLD" && m.records.length === 0) return { status: "DEAD" };
      if (new Set(m.records.map((r) => r.flid)).size !== m.records.length) return { status: "DEAD" };
      for (const r of m.records) {
        // Every SCHD record is the flight's full state: all required fields, valued.
        for (const name of REQUIRED_SCHD_FIELDS) if (r.scalars[name] == null) return { status: "DEAD" };
        const sodt = r.scalars.SODT;
        const stored = live(r.flid);
        if (stored !== undefined && typeof sodt === "string" && stored.day !== dayOf(sodt)) return { status: "DEAD" };
      }
      let stale = 0;
      for (const r of m.records) {
        if (isStale(r.flid)) {
          stale++;
          continue;
        }
        const was = live(r.flid);
        const f = was !== undefined ? copy(was) : empty();
        // The record replaces the content: what it leaves out is unset, but for ERUT, kept.
        f.fields = {};
        f.colls = was?.colls.ERUT === undefined ? {} : { ERUT: was.colls.ERUT };
        for (const [name, v] of Object.entries(r.scalars)) if (v !== undefined) f.fields[name] = v;
        for (const [name, rows] of Object.entries(r.collections)) if (rows !== undefined) f.colls[name] = [...rows];
        if (typeof r.ffid === "string") f.ffid = r.ffid;
        if (f.day === null && typeof r.scalars.SODT === "string") f.day = dayOf(r.scalars.SODT);
        next.set(r.flid, f);
      }
      if (m.records.length > 0 && stale === m.records.length) return { status: "SKIPPED", reason: "stale" };
      return { status: "SUCCEEDED" };
    }

    if (m.kind === "fdel") {
      const f = this.flights.get(m.flid);
      if (f === undefined) return { status: "SKIPPED", reason: "no-flight" };
      if (f.deleted) return { status: "SUCCEEDED" };
      if (isStale(m.flid)) return { status: "SKIPPED", reason: "stale" };
      const after = copy(f);
      after.deleted = true;
      after.ffid = ffidAfter(m.ffid, after);
      next.set(m.flid, after);
      return { status: "SUCCEEDED" };
    }

    if (FLOP_MATRIX[m.styp] === undefined) return { status: "FAILED" };
    if (m.blocks.some((b) => flopFault(m.styp, b))) return { status: "DEAD" };
    let known = 0;
    let stale = 0;
    for (const b of m.blocks) {
      if (live(b.flid) === undefined) continue;
      known++;
      if (isStale(b.flid)) {
        stale++;
        continue;
      }
      const f = next.get(b.flid) ?? copy(live(b.flid)!);
      applyFlop(m.styp, b, f);
      f.ffid = ffidAfter(b.ffid, f);
      next.set(b.flid, f);
    }
    if (known === 0) return { status: "SKIPPED", reason: "no-flight" };
    if (stale === known) return { status: "SKIPPED", reason: "stale" };
    return { status: "SUCCEEDED" };
  }

  /** The model's flights in the processors' shape (rows in key order). */
  states(): Map<string, FlightState> {
    const out = new Map<string, FlightState>();
    for (const [flid, f] of this.flights) {
      out.set(flid, {
        flid,
        ffid: f.ffid,
        operationDay: f.day,
        stateVersion: f.version,
        lastMsgId: f.lastMsgId,
        lastSrcDttm: f.lastDttm,
        deleted: f.deleted,
        scalars: { ...f.fields },
        collections: Object.fromEntries(Object.entries(f.colls).map(([n, rows]) => [n, [...rows].sort(byKey)])),
      });
    }
    return out;
  }
}
