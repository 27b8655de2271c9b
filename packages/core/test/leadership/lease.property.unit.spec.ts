/**
 * With arbitrary delays between a request's send, its execution by the store and its answer, and
 * arbitrary freezes of whole processes, no two leaderships' windows overlap on the store's clock.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InMemoryLeaseStore } from "../../src/leadership/in-memory-lease-store.js";
import { decideLease, evolveLease, initialLease, LeasePhase, leaseTiming, type LeaseCommand, type LeaseState } from "../../src/leadership/lease-machine.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

const TTL = 1_000;
const timing = leaseTiming(TTL);

type Op =
  | { readonly op: "advance"; readonly ms: number }
  | { readonly op: "send" | "execute" | "answer" | "tick"; readonly h: number };

const arbOp = (holders: number): fc.Arbitrary<Op> =>
  fc.oneof(
    fc.record({ op: fc.constant("advance" as const), ms: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 400, max: 5_000 })) }),
    fc.record({ op: fc.constantFrom("send" as const, "execute" as const, "answer" as const, "tick" as const), h: fc.integer({ min: 0, max: holders - 1 }) }),
  );

interface Holder {
  state: LeaseState;
  /** The request in flight: sent at, and the store's answer once it executed. */
  pending: { sentAt: number; answer?: LeaseCommand | "none" } | undefined;
}

/** A window in which one leadership (epoch) may start pipeline steps. */
interface Window {
  readonly epoch: number;
  readonly from: number;
  readonly until: number;
}

async function play(ops: readonly Op[], holders: number): Promise<Window[]> {
  const clock = new ManualClock(0);
  const store = new InMemoryLeaseStore(clock);
  const hs: Holder[] = Array.from({ length: holders }, () => ({ state: initialLease, pending: undefined }));
  const windows: Window[] = [];
  const apply = (h: Holder, command: LeaseCommand) => {
    const event = decideLease(h.state, command, clock.now(), timing);
    if (event === undefined) return;
    h.state = evolveLease(h.state, event);
    if (h.state.phase === LeasePhase.LEADING) windows.push({ epoch: h.state.epoch, from: clock.now(), until: h.state.validUntil });
  };
  for (const o of ops) {
    if (o.op === "advance") {
      clock.advance(o.ms);
      continue;
    }
    const h = hs[o.h]!;
    const name = `H${o.h}`;
    switch (o.op) {
      case "send":
        if (h.pending === undefined && h.state.phase !== LeasePhase.LOST) h.pending = { sentAt: clock.now() };
        break;
      case "execute": {
        const p = h.pending;
        if (p === undefined || p.answer !== undefined) break;
        if (h.state.phase === LeasePhase.LEADING) {
          const r = await store.renew(name, h.state.epoch, TTL);
          p.answer = typeof r === "number" ? { type: "renewed", sentAt: p.sentAt } : { type: "renew-refused", why: r.refused };
        } else {
          const g = await store.tryAcquire(name, TTL);
          p.answer = g === undefined ? "none" : { type: "acquired", epoch: g.epoch, sentAt: p.sentAt };
        }
        break;
      }
      case "answer":
        if (h.pending?.answer === undefined) break;
        if (h.pending.answer !== "none") apply(h, h.pending.answer);
        h.pending = undefined;
        break;
      case "tick":
        apply(h, { type: "tick" });
        break;
    }
  }
  return windows;
}

describe("the lease: never two leaders at once", () => {
  it("no two epochs' leading windows overlap, whatever the delays and freezes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 3 }).chain((n) => fc.tuple(fc.constant(n), fc.array(arbOp(n), { minLength: 50, maxLength: 400, size: "max" }))), async ([n, ops]) => {
        const windows = (await play(ops, n)).filter((w) => w.from < w.until);
        for (const a of windows) {
          for (const b of windows) {
            if (a.epoch === b.epoch) continue;
            expect(a.from >= b.until || b.from >= a.until, `epoch ${a.epoch} [${a.from}, ${a.until}) overlaps epoch ${b.epoch} [${b.from}, ${b.until})`).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("the scenarios do lead and hand over (the property is not vacuous)", async () => {
    const ops: Op[] = [
      { op: "send", h: 0 }, { op: "execute", h: 0 }, { op: "answer", h: 0 },
      { op: "advance", ms: 5_000 }, // H0 frozen past its lease
      { op: "send", h: 1 }, { op: "execute", h: 1 }, { op: "answer", h: 1 },
      { op: "send", h: 0 }, { op: "execute", h: 0 }, { op: "answer", h: 0 }, // H0 wakes, renews: refused
    ];
    const windows = await play(ops, 2);
    expect(windows.map((w) => w.epoch)).toEqual([1, 2]);
  });
});
