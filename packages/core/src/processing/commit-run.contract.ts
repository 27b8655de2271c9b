import { expect, it } from "vitest";
import type { FlightState } from "../model/flight-state.js";
import { ProcStatus, type ProcRecord } from "../model/proc-record.js";
import { DEFAULT_RETRY_POLICY } from "../runtime/retry-policy.js";
import type { PipelineStore } from "./pipeline-store.js";
import { evolveProc } from "./proc-machine.js";
import { emptyRunDecision, type RunDecision } from "./run-decision.js";
import { StaleRunError } from "./stale-run-error.js";

const T0 = Date.UTC(2026, 2, 5, 2, 0, 0);
const meta = { sndr: "AODB", seqn: 7, dttm: "20260305020000", type: "FLOP", styp: "ESTT" };

const succeeded = (r: ProcRecord): ProcRecord =>
  evolveProc(r, { type: "succeeded" }, { now: T0, identityKey: `AODB|FLOP|ESTT|${r.msgId}`, meta: { ...meta, seqn: r.msgId } }, DEFAULT_RETRY_POLICY);

const flight = (flid: string, version: number, gate: string): FlightState => ({
  flid,
  ffid: `CZ-CZ${flid}-D-05MAR260800-D`,
  operationDay: "20260305",
  stateVersion: version,
  lastMsgId: version,
  lastSrcDttm: "20260305020000",
  deleted: false,
  scalars: { FLNO: `CZ${flid}`, CNCL: null },
  collections: { GTDT: [{ key: "1", values: { GATE: gate, GOTM: null } }], DELY: [] },
});

/**
 * The cases of `loadRunState` and `commitRun` (issue 32: a run decided from memory, committed in
 * one round trip), part of `describePipelineStoreContract`: the one place these two are specified.
 */
export function describeCommitRunCases(harness: () => { readonly store: PipelineStore; bumpEpoch(): Promise<number> }): void {
  const store = () => harness().store;
  const enqueue = (ids: number[]) => store().enqueue(ids.map((msgId) => ({ msgId, receivedAt: T0 + msgId })), { horizon: Math.max(...ids) });
  const generation = async () => (await store().loadRunState([], [])).generation;
  /** Whether a refused run left the store as it was: records pending, keys unbound, flight absent, no todo, no audit. */
  const nothingOf = async (ids: number[], keys: string[], flids: string[]) => {
    for (const id of ids) expect((await store().get(id))?.status).toBe(ProcStatus.PENDING);
    const loaded = await store().loadRunState(keys, flids);
    expect(loaded.owners.size).toBe(0);
    expect(loaded.flights.size).toBe(0);
    expect(await store().dueBackfill(T0 + 86_400_000, 10)).toEqual([]);
    expect(await store().audits(10)).toEqual([]);
  };
  const decisionFor = async (ids: number[], flid = "900201"): Promise<RunDecision> => {
    const records = await Promise.all(ids.map(async (id) => succeeded((await store().get(id))!)));
    return {
      ...emptyRunDecision,
      records,
      bindings: ids.map((msgId) => ({ identityKey: `K${msgId}`, msgId, contentHash: `h${msgId}` })),
      flights: [flight(flid, 1, "A1")],
      events: ids.map((id) => ({ target: "KAFKA:msg", partitionKey: flid, eventType: "UPSERT" as const, stateVersion: 1, payload: { id }, sourceMsgId: id })),
      backfill: ids.map((msgId) => ({ msgId, processedAt: T0, meta })),
      audits: [{ at: T0, operator: "msgx", action: "unsupported-skipped", msgIds: ids, detail: "x" }],
    };
  };

  it("commitRun answers the ids its events were given, one per event in their order, ascending and above every earlier run's; a run without events answers none", async () => {
    await enqueue([1, 2, 3]);
    const first = await store().commitRun(await decisionFor([1, 2]), { generation: await generation() });
    expect(first).toHaveLength(2);
    expect(first[0]!).toBeLessThan(first[1]!);
    const second = await store().commitRun(await decisionFor([3], "900202"), { generation: await generation() });
    expect(second).toHaveLength(1);
    expect(second[0]!).toBeGreaterThan(first[1]!);
    await enqueue([4]);
    expect(await store().commitRun({ ...emptyRunDecision, records: [succeeded((await store().get(4))!)] }, { generation: await generation() })).toEqual([]);
  });

  it("commitRun writes what applyRun writes (records, bindings, flights, backfill, audits), seen by get, unfinished, loadRunState and the pipeline transaction", async () => {
    await enqueue([1, 2, 3]);
    const g = await generation();
    // A binding stored without a content hash reads back null.
    const decision = { ...(await decisionFor([1, 2])), bindings: [{ identityKey: "K1", msgId: 1, contentHash: "h1" }, { identityKey: "K2", msgId: 2, contentHash: null }] };
    await store().commitRun(decision, { generation: g });
    expect(await store().get(1)).toEqual(decision.records[0]);
    expect((await store().unfinished(0, 10)).map((r) => r.msgId)).toEqual([3]);
    const loaded = await store().loadRunState(["K1", "K2", "K9"], ["900201", "404"]);
    expect(loaded.generation).toBe(g);
    expect(loaded.owners).toEqual(
      new Map([
        ["K1", { msgId: 1, contentHash: "h1", boundAt: expect.any(Number) }],
        ["K2", { msgId: 2, contentHash: null, boundAt: expect.any(Number) }],
      ]),
    );
    expect(loaded.flights).toEqual(new Map([["900201", decision.flights[0]]]));
    expect((await store().dueBackfill(T0 + 86_400_000, 10)).map((t) => t.msgId)).toEqual([1, 2]);
    expect((await store().audits(10)).map(({ auditId: _, ...a }) => a)).toEqual(decision.audits);
    // loadRunState gives what the pipeline transaction reads.
    await store().transaction(async (tx) => {
      expect(await tx.identityOwners(["K1", "K2", "K9"])).toEqual(loaded.owners);
      expect(await tx.loadFlights(["900201", "404"])).toEqual(loaded.flights);
    });
    // The next version of the flight replaces it whole, collections included.
    const next: FlightState = { ...flight("900201", 2, "B7"), collections: { DELY: [{ key: "81", values: { "@CODE": "81" } }] } };
    await store().commitRun({ ...emptyRunDecision, records: [succeeded((await store().get(3))!)], flights: [next] }, { generation: await generation() });
    expect((await store().loadRunState([], ["900201"])).flights.get("900201")).toEqual(next);
  });

  it("a transaction that writes a run moves the state generation on; enqueue, commitRun and a transaction that only reads or appends audits do not", async () => {
    const g0 = await generation();
    await enqueue([1, 2]);
    expect(await generation()).toBe(g0);
    await store().commitRun(await decisionFor([1]), { generation: g0 });
    expect(await generation()).toBe(g0);
    await store().transaction(async (tx) => {
      await tx.identityOwners(["K1"]);
      await tx.loadFlights(["900201"]);
      await tx.appendAudit({ at: T0, operator: "ops", action: "replay", msgIds: [1], detail: "" });
    });
    expect(await generation()).toBe(g0);
    await store().transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [flight("900201", 2, "A2")] }));
    const g1 = await generation();
    expect(g1).toBeGreaterThan(g0);
    // Decided before the transaction: a one-connection store (PGlite) serves nothing else while it is open.
    const second = { ...emptyRunDecision, records: [succeeded((await store().get(2))!)] };
    await store().transaction((tx) => tx.applyRun(second));
    expect(await generation()).toBeGreaterThan(g1);
    // A transaction that wrote a run and then failed moves nothing.
    const g2 = await generation();
    await expect(store().transaction(async (tx) => {
      await tx.applyRun({ ...emptyRunDecision, flights: [flight("900201", 3, "A3")] });
      throw new Error("the caller gave up");
    })).rejects.toThrow("the caller gave up");
    expect(await generation()).toBe(g2);
  });

  it("refuses a run decided at a stale generation with StaleRunError (the current generation) and writes nothing", async () => {
    await enqueue([1, 2]);
    const stale = await generation();
    await store().transaction((tx) => tx.applyRun(emptyRunDecision));
    const current = await generation();
    const refused = store().commitRun(await decisionFor([1, 2]), { generation: stale });
    await expect(refused).rejects.toBeInstanceOf(StaleRunError);
    await expect(refused).rejects.toMatchObject({ kind: "CONFLICT", generation: current, boundKeys: [] });
    await nothingOf([1, 2], ["K1", "K2"], ["900201"]);
  });

  it("refuses a run that binds as new a key bound to another message, naming the key, and writes nothing; a key bound to the same message passes", async () => {
    await enqueue([1, 2, 3]);
    await store().commitRun({ ...emptyRunDecision, records: [succeeded((await store().get(1))!)], bindings: [{ identityKey: "K2", msgId: 1 }] }, { generation: await generation() });
    const g = await generation();
    const decision = await decisionFor([2, 3]);
    const refused = store().commitRun(decision, { generation: g });
    await expect(refused).rejects.toBeInstanceOf(StaleRunError);
    await expect(refused).rejects.toMatchObject({ boundKeys: ["K2"] });
    for (const id of [2, 3]) expect((await store().get(id))?.status).toBe(ProcStatus.PENDING);
    const after = await store().loadRunState(["K2", "K3"], ["900201"]);
    expect(after.generation).toBe(g);
    expect([...after.owners.entries()].map(([k, o]) => [k, o.msgId])).toEqual([["K2", 1]]);
    expect(after.flights.size).toBe(0);
    // The same message binding its own key again is no conflict.
    await store().commitRun({ ...emptyRunDecision, bindings: [{ identityKey: "K2", msgId: 1 }] }, { generation: g });
  });

  it("sees a binding written by a transaction: a new binding of that key is refused, naming only that key", async () => {
    await enqueue([1, 2]);
    // Decided before the transaction: a one-connection store (PGlite) serves nothing else while it is open.
    const first = { ...emptyRunDecision, records: [succeeded((await store().get(1))!)], bindings: [{ identityKey: "K", msgId: 1 }] };
    await store().transaction((tx) => tx.applyRun(first));
    const g = await generation();
    const decision = { ...emptyRunDecision, records: [succeeded((await store().get(2))!)], bindings: [{ identityKey: "K", msgId: 2 }, { identityKey: "L", msgId: 2 }], flights: [flight("900201", 1, "A1")] };
    const refused = await store().commitRun(decision, { generation: g }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StaleRunError);
    expect((refused as StaleRunError).boundKeys).toEqual(["K"]);
    expect((await store().get(2))?.status).toBe(ProcStatus.PENDING);
    const loaded = await store().loadRunState(["K", "L"], ["900201"]);
    expect([...loaded.owners].map(([k, o]) => [k, o.msgId])).toEqual([["K", 1]]);
    expect(loaded.flights.size).toBe(0);
  });

  it("refuses a run that is not the unfinished records from the head (notAtHead) and writes nothing", async () => {
    await enqueue([1, 2, 3]);
    const g = await generation();
    const only = async (ids: number[]) => ({ ...emptyRunDecision, records: await Promise.all(ids.map(async (id) => succeeded((await store().get(id))!))) });
    const notAtHead = async (d: RunDecision) => {
      const refused = await store().commitRun(d, { generation: g }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(StaleRunError);
      expect((refused as StaleRunError).notAtHead).toBe(true);
    };
    const second = await only([2]);
    await notAtHead(second); // skips the head
    await notAtHead(await only([1, 3])); // leaves a hole
    const first = await only([1]);
    await store().commitRun(first, { generation: g });
    await notAtHead({ ...emptyRunDecision, records: [...first.records, ...second.records] }); // holds a finished record
    expect((await store().unfinished(0, 10)).map((r) => r.msgId)).toEqual([2, 3]);
    await store().commitRun(second, { generation: g });
    expect((await store().unfinished(0, 10)).map((r) => r.msgId)).toEqual([3]);
  });

  it("moves a binding with replaces, and refuses a move whose named owner no longer holds the key", async () => {
    await enqueue([1, 2, 3]);
    await store().commitRun({ ...emptyRunDecision, records: [succeeded((await store().get(1))!)], bindings: [{ identityKey: "K", msgId: 1, contentHash: "h1" }] }, { generation: await generation() });
    const g = await generation();
    await store().commitRun({ ...emptyRunDecision, records: [succeeded((await store().get(2))!)], bindings: [{ identityKey: "K", msgId: 2, contentHash: "h2", replaces: 1 }] }, { generation: g });
    expect((await store().loadRunState(["K"], [])).owners.get("K")).toEqual({ msgId: 2, contentHash: "h2", boundAt: expect.any(Number) });
    await expect(
      store().commitRun({ ...emptyRunDecision, records: [succeeded((await store().get(3))!)], bindings: [{ identityKey: "K", msgId: 3, replaces: 1 }] }, { generation: g }),
    ).rejects.toMatchObject({ kind: "INFRA" });
    expect((await store().get(3))?.status).toBe(ProcStatus.PENDING);
    expect((await store().loadRunState(["K"], [])).owners.get("K")?.msgId).toBe(2);
  });

  it("refuses a run fenced by a stale epoch (FENCED) and writes nothing", async () => {
    await enqueue([1, 2]);
    const epoch = await harness().bumpEpoch();
    await harness().bumpEpoch();
    await expect(store().commitRun(await decisionFor([1, 2]), { generation: await generation(), fence: epoch })).rejects.toMatchObject({ kind: "FENCED" });
    await nothingOf([1, 2], ["K1", "K2"], ["900201"]);
  });

  it("refuses a run that answers requests (INFRA): those commit through transaction", async () => {
    await enqueue([1]);
    const request = { requestId: "1", version: 1 } as unknown as NonNullable<RunDecision["requests"]>[number]["request"];
    await expect(store().commitRun({ ...(await decisionFor([1])), requests: [{ request, expectedVersion: 1 }] }, { generation: await generation() })).rejects.toMatchObject({
      kind: "INFRA",
    });
    await nothingOf([1], ["K1"], ["900201"]);
  });
}
