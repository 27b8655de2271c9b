/**
 * The command machinery of the leader-memory properties: traffic, crashes, takeovers and writers
 * beside the leader, applied to a `LeaderWorld`, and what the properties compare.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { sis, sodtMarch } from "../jobs/maintenance-world.js";
import type { LeaderWorld } from "./leader-memory-world.js";

const HOUR = 3_600_000;

export type Command =
  | { readonly kind: "adft"; readonly flid: string; readonly day: number }
  | { readonly kind: "estt" | "fdel"; readonly flid: string }
  | { readonly kind: "ldm" }
  | { readonly kind: "resend" | "reuse" | "replay" | "admin"; readonly pick: number }
  | { readonly kind: "pump"; readonly steps: number }
  | { readonly kind: "crash" | "takeover" | "sweep" }
  | { readonly kind: "crashAt"; readonly point: "pump.before-commit" | "pump.after-commit" }
  | { readonly kind: "advance"; readonly hours: number };

const flid = fc.constantFrom("101", "102", "103", "104", "105");
export const command: fc.Arbitrary<Command> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("adft" as const), flid, day: fc.integer({ min: 3, max: 8 }) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constantFrom("estt" as const, "fdel" as const), flid }), weight: 4 },
  { arbitrary: fc.constant({ kind: "ldm" as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constantFrom("resend" as const, "reuse" as const), pick: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("pump" as const), steps: fc.integer({ min: 1, max: 4 }) }), weight: 6 },
  { arbitrary: fc.constantFrom<Command>({ kind: "crash" }, { kind: "takeover" }, { kind: "sweep" }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("crashAt" as const), point: fc.constantFrom("pump.before-commit" as const, "pump.after-commit" as const) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constantFrom("replay" as const, "admin" as const), pick: fc.nat() }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("advance" as const), hours: fc.integer({ min: 1, max: 30 }) }), weight: 2 },
);

export interface Sent {
  readonly seqn: number;
  readonly flid: string;
  readonly raw: string;
}

/** Runs `c` on one world; `sent` is the world's own list (both worlds get the same messages). */
export async function apply(w: LeaderWorld, c: Command, sent: Sent[]): Promise<void> {
  const now = w.clock.now();
  const send = (seqn: number, f: string, raw: string) => {
    w.mailbox.insert(raw);
    sent.push({ seqn, flid: f, raw });
  };
  const picked = (pick: number) => sent[pick % Math.max(1, sent.length)];
  switch (c.kind) {
    case "adft":
      return send(sent.length + 1, c.flid, sis.adft(sent.length + 1, c.flid, sodtMarch(c.day), now));
    case "estt":
      return send(sent.length + 1, c.flid, sis.estt(sent.length + 1, c.flid, now));
    case "fdel":
      return send(sent.length + 1, c.flid, sis.fdel(sent.length + 1, c.flid, now));
    case "ldm":
      return send(sent.length + 1, "", sis.ldm(sent.length + 1, now));
    case "resend": {
      const s = picked(c.pick);
      if (s !== undefined) send(s.seqn, s.flid, s.raw);
      return;
    }
    case "reuse": {
      // The same identity (an ESTT's SEQN) with another body: a duplicate inside the window, a new message past it.
      const s = picked(c.pick);
      if (s !== undefined && s.raw.includes("<STYP>ESTT</STYP>")) send(s.seqn, s.flid, sis.estt(s.seqn, s.flid, now + 1_000));
      return;
    }
    case "pump":
      return w.steps(c.steps);
    case "crash":
      return w.restart();
    case "crashAt":
      w.armed = c.point;
      return;
    case "takeover":
      return w.takeover();
    case "sweep":
      return w.sweep();
    case "replay":
      return w.replay(1 + (c.pick % Math.max(1, w.pipeline.tables.records.size)));
    case "admin":
      return w.adminFlight(c.pick);
    case "advance":
      return w.clock.advance(c.hours * HOUR);
  }
}

/** Every flight and owner the leader holds equals the store's, while its generation is the store's. */
export function checkMemory(w: LeaderWorld): void {
  if (w.pump.memory.generation !== w.pipeline.tables.generation) return;
  const { flights, owners } = w.pump.memory.entries();
  for (const [f, held] of flights) expect(held, `flight ${f} in memory`).toEqual(w.storedFlight(f));
  for (const [key, held] of owners) expect(held, `owner of ${key} in memory`).toEqual(w.storedOwner(key));
}

/** The state both pumps must leave: records, flights (live and retired), bindings, events, audits. */
function endState(w: LeaderWorld) {
  const t = w.pipeline.tables;
  const sorted = <V>(m: ReadonlyMap<string | number, V>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    records: sorted(t.records),
    flights: sorted(t.flights),
    retired: sorted(t.retired),
    identities: sorted(t.identities),
    hashes: sorted(t.identityHashes),
    boundAt: sorted(t.identityBoundAt),
    events: t.events.map(({ status: _s, attempts: _a, nextAttemptAt: _n, lastError: _l, sentAt: _t, ...e }) => e),
    audits: t.audits,
    terminalLog: t.terminalLog,
  };
}

/** Both worlds run out of work; the leader's memory still equals the store, and both ended alike. */
export async function expectEndsAlike(fast: LeaderWorld, slow: LeaderWorld): Promise<void> {
  await fast.drain();
  await slow.drain();
  checkMemory(fast);
  expect(endState(fast)).toEqual(endState(slow));
}
