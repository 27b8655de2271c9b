import { describe, expect, it } from "vitest";
import { emptyRunDecision, type ProcRecord, type RunDecision } from "@msgx/core";
import { LeaderMemory, newProcRecord, runBehind, Speculation, speculationVerdict, stateAfter, type SpeculationCheck } from "@msgx/core/testing";
import { flight } from "./flight-fixture.js";

const HOUR = 3_600_000;
const pending = (msgId: number): ProcRecord => newProcRecord(msgId, 0, 0, null);
const done = (msgId: number): ProcRecord => ({ ...pending(msgId), status: "SUCCEEDED" });
const failed = (msgId: number, nextAttemptAt: number | null): ProcRecord => ({ ...pending(msgId), status: "FAILED", attempts: 1, nextAttemptAt });
const base = (records: ProcRecord[], more: Partial<RunDecision> = {}): RunDecision => ({ ...emptyRunDecision, records, ...more });

describe("runBehind", () => {
  const records = [pending(1), pending(2), pending(3), failed(4, 50), pending(5)];

  it("is the ready run behind a run that ended every record, up to a FAILED record not yet due", () => {
    expect(runBehind(records, base([done(1)]), 10, 99)?.map((r) => r.msgId)).toEqual([2, 3]);
    expect(runBehind(records, base([done(1)]), 60, 99)?.map((r) => r.msgId)).toEqual([2, 3, 4, 5]);
    expect(runBehind(records, base([done(1)]), 60, 3)?.map((r) => r.msgId)).toEqual([2, 3]);
  });

  it("is none behind a run that keeps a head, or that is not the first records, or before a FAILED or unsafe head", () => {
    expect(runBehind(records, base([{ ...failed(1, 20) }]), 10, 99)).toBeUndefined();
    expect(runBehind(records, base([done(2)]), 10, 99)).toBeUndefined();
    expect(runBehind(records, base([done(1), done(2), done(3)]), 60, 99)).toBeUndefined();
    expect(runBehind(records, base([done(1)]), 10, 1)).toBeUndefined();
    expect(runBehind(records.slice(0, 1), base([done(1)]), 10, 99)).toBeUndefined();
    expect(runBehind(records, base([]), 10, 99)).toBeUndefined();
  });
});

describe("stateAfter", () => {
  const memory = () => {
    const m = new LeaderMemory({}, 10 * HOUR);
    m.adopt({ generation: 1, flights: new Map([["a", flight("a")]]), owners: new Map([["k1", { msgId: 1, contentHash: "h1", boundAt: 0 }]]) }, ["a", "b"], 0);
    return m;
  };
  const needs = (flightIds: string[], identityKeys: string[] = []) => ({ flightIds, identityKeys });

  it("is the memory with the base run's flights and new bindings laid over it, as `committed` would leave it", () => {
    const written = base([done(2)], { flights: [flight("a", 2), flight("b"), flight("z")], bindings: [{ identityKey: "k2", msgId: 2, contentHash: "h2" }] });
    const m = memory();
    const state = stateAfter(m.peek(["a", "b"], ["k1", "k2"], HOUR), written, HOUR, needs(["a", "b"], ["k1", "k2"]));
    expect(state?.flights).toEqual(new Map([["a", flight("a", 2)], ["b", flight("b")]]));
    expect(state?.identityOwners).toEqual(new Map([["k1", { msgId: 1, contentHash: "h1", boundAt: 0 }], ["k2", { msgId: 2, contentHash: "h2", boundAt: HOUR }]]));
    m.committed(written, HOUR);
    expect(m.flights(["a", "b"])).toEqual(state?.flights);
    expect(m.owners(["k1", "k2"], HOUR)).toEqual(state?.identityOwners);
  });

  it("is none when the run needs a flight neither held nor written by the base run; reading changes nothing", () => {
    const m = memory();
    const before = m.entries();
    expect(stateAfter(m.peek(["a", "c"], [], 11 * HOUR), base([done(2)]), 0, needs(["a", "c"]))).toBeUndefined();
    expect(stateAfter(m.peek(["c"], [], 0), base([done(2)], { flights: [flight("c")] }), 0, needs(["c"]))?.flights).toEqual(new Map([["c", flight("c")]]));
    // An owner past the window is not given (as `owners` would not), and not evicted either.
    expect(m.peek([], ["k1"], 11 * HOUR).owners.size).toBe(0);
    expect(m.entries()).toEqual(before);
  });
});

describe("speculationVerdict", () => {
  const run = [pending(2), pending(3)];
  const n = base([done(1)]);
  const spec = () => new Speculation(n, 7, run, 1_000, Promise.resolve(undefined));
  const settled = { prepared: { messages: [], identityKeys: [], flightIds: [] }, decision: { decision: base([done(2), done(3)]), stored: new Map() } };
  const check: SpeculationCheck = { run, lastCommitted: n, generation: 7, now: 1_050, maxAgeMs: 100 };

  it("commits the decision when nothing it was made from changed", () => {
    expect(speculationVerdict(spec(), settled, check)).toBe("decision");
  });

  it("decides again from the read when N is not the last commit, the generation moved, it is too old, or it has no decision", () => {
    expect(speculationVerdict(spec(), settled, { ...check, lastCommitted: null })).toBe("read");
    expect(speculationVerdict(spec(), settled, { ...check, lastCommitted: base([done(1)]) })).toBe("read");
    expect(speculationVerdict(spec(), settled, { ...check, generation: undefined })).toBe("read");
    expect(speculationVerdict(spec(), settled, { ...check, now: 1_101 })).toBe("read");
    expect(speculationVerdict(spec(), { prepared: settled.prepared }, check)).toBe("read");
  });

  it("uses nothing when the run differs (other records, more, fewer, equal copies) or the speculation failed", () => {
    expect(speculationVerdict(spec(), settled, { ...check, run: [...run, pending(4)] })).toBe("discard");
    expect(speculationVerdict(spec(), settled, { ...check, run: run.slice(0, 1) })).toBe("discard");
    expect(speculationVerdict(spec(), settled, { ...check, run: run.map((r) => ({ ...r })) })).toBe("discard");
    expect(speculationVerdict(spec(), undefined, check)).toBe("discard");
  });
});
