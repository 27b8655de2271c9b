import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProcStatus, type ProcRecord } from "@msgx/core";
import { KnownUnfinished, type UnfinishedQuery } from "../../src/processing/known-unfinished.js";
import { newProcRecord } from "../../src/processing/proc-machine.js";

const RESYNC = 1_000;
const LIMIT = 5;

type Command =
  | { readonly kind: "enqueue-start"; readonly ids: readonly number[] }
  | { readonly kind: "enqueue-commit" }
  | { readonly kind: "enqueue-end"; readonly lost: boolean }
  | { readonly kind: "query-start"; readonly snapshotFirst: boolean }
  | { readonly kind: "query-end" }
  | { readonly kind: "commit"; readonly take: number; readonly outcome: "SUCCEEDED" | "FAILED" }
  | { readonly kind: "forget" };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant("enqueue-start" as const), ids: fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { maxLength: 6 }) }),
  fc.constant({ kind: "enqueue-commit" as const }),
  fc.record({ kind: fc.constant("enqueue-end" as const), lost: fc.boolean() }),
  fc.record({ kind: fc.constant("query-start" as const), snapshotFirst: fc.boolean() }),
  fc.constant({ kind: "query-end" as const }),
  fc.record({ kind: fc.constant("commit" as const), take: fc.integer({ min: 1, max: LIMIT }), outcome: fc.constantFrom("SUCCEEDED" as const, "FAILED" as const) }),
  fc.constant({ kind: "forget" as const }),
);

const records = (ids: readonly number[]): ProcRecord[] => ids.map((id) => newProcRecord(id, 0, 0));

/** Sends the query `known` asks for to a store whose unfinished records are `unfinished` and hands the answer back. */
function ask(known: KnownUnfinished, unfinished: readonly ProcRecord[], limit = LIMIT, now = 0): readonly ProcRecord[] {
  const query = known.queryStarted(limit);
  return known.queried(unfinished.filter((r) => r.msgId >= query.from).slice(0, query.limit), now, query);
}

const ids = (records: readonly ProcRecord[] | undefined) => records?.map((r) => r.msgId);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("KnownUnfinished (the pump's runs from memory)", () => {
  it("is unknown until a query no enqueue overlapped; complete when the answer is short of its limit", () => {
    const known = new KnownUnfinished(RESYNC);
    expect(known.state).toBe("unknown");
    expect(known.candidates(LIMIT, 0)).toBeUndefined();
    expect(known.queryStarted(LIMIT)).toMatchObject({ from: 0, limit: LIMIT });
    expect(ids(ask(known, records([1, 2])))).toEqual([1, 2]);
    expect(known.state).toBe("complete");
    expect(ids(known.candidates(LIMIT, 0))).toEqual([1, 2]);
  });

  it("keeps a query at its limit as a prefix: it gives runs as long as it holds them, and asks for what follows it after", () => {
    const store = records(range(1, 12));
    const known = new KnownUnfinished(RESYNC);
    expect(ids(ask(known, store))).toEqual([1, 2, 3, 4, 5]);
    expect(known.state).toBe("prefix");
    expect(ids(known.candidates(3, 0))).toEqual([1, 2, 3]);
    expect(ids(known.candidates(LIMIT, 0))).toEqual([1, 2, 3, 4, 5]);
    // Records 6.. are not known, nor known to be missing: a longer run is not given.
    expect(known.candidates(LIMIT + 1, 0)).toBeUndefined();
    // The run [1, 2] commits: the prefix holds [3, 4, 5], too few for a run of five.
    known.committed([1, 2].map((id) => ({ ...store[id - 1]!, status: ProcStatus.SUCCEEDED })));
    expect(ids(known.candidates(3, 0))).toEqual([3, 4, 5]);
    expect(known.candidates(LIMIT, 0)).toBeUndefined();
    // So the pump asks for the records after the prefix, and they extend it (the same objects before them).
    const held = known.candidates(3, 0)!;
    expect(known.queryStarted(LIMIT)).toMatchObject({ from: 6, limit: LIMIT });
    const given = ask(known, store);
    expect(ids(given)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(given.slice(0, 3)).toEqual(held);
    given.slice(0, 3).forEach((r, i) => expect(r).toBe(held[i]));
    expect(known.state).toBe("prefix");
    // Consumed to nothing, it asks again from where it ends; an answer short of its limit completes it.
    known.committed(records(range(3, 10)).map((r) => ({ ...r, status: ProcStatus.SUCCEEDED })));
    expect(known.candidates(1, 0)).toBeUndefined();
    expect(known.queryStarted(LIMIT)).toMatchObject({ from: 11, limit: LIMIT });
    expect(ids(ask(known, store))).toEqual([11, 12]);
    expect(known.state).toBe("complete");
  });

  it("adds an enqueue that returns while only a prefix is known only within the prefix", () => {
    const known = new KnownUnfinished(RESYNC);
    ask(known, records([1, 2, 4, 5, 6]));
    expect(known.state).toBe("prefix");
    known.enqueueStarted();
    // 3 lies within the prefix (every unfinished record up to 6 is known); 9 lies beyond, where 7 and 8 may be.
    known.enqueueEnded([3, 9].map((msgId) => ({ msgId, receivedAt: 0 })), 0);
    expect(ids(known.candidates(6, 0))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(known.candidates(7, 0)).toBeUndefined();
    expect(known.queryStarted(7)).toMatchObject({ from: 7 });
    expect(ids(ask(known, records([1, 2, 3, 4, 5, 6, 7, 8, 9]), 7))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(known.state).toBe("complete");
  });

  it("does not extend a prefix with an answer an enqueue overlapped; the step still gets the answer", () => {
    const known = new KnownUnfinished(RESYNC);
    ask(known, records(range(1, 5)));
    const query = known.queryStarted(LIMIT);
    known.enqueueStarted();
    // The answer may hold some of that enqueue's records, or not.
    expect(ids(known.queried(records([6, 7]), 0, query))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    known.enqueueEnded([8].map((msgId) => ({ msgId, receivedAt: 0 })), 0);
    expect(known.state).toBe("prefix");
    expect(known.queryStarted(LIMIT)).toMatchObject({ from: 6 });
    // A failed enqueue forgets the prefix too: it may have committed anywhere.
    known.enqueueStarted();
    known.enqueueEnded(undefined, 0);
    expect(known.state).toBe("unknown");
    expect(known.queryStarted(LIMIT)).toMatchObject({ from: 0 });
  });

  it("asks again when idle for resyncMs: a replay elsewhere is found without a commit to refuse", () => {
    const known = new KnownUnfinished(RESYNC);
    ask(known, []);
    expect(known.candidates(LIMIT, RESYNC - 1)).toEqual([]);
    expect(known.candidates(LIMIT, RESYNC)).toBeUndefined();
    expect(known.queryStarted(LIMIT)).toMatchObject({ from: 0 });
  });

  it("does not keep a query that ran while an enqueue was on its way, nor anything after a lost enqueue", () => {
    const known = new KnownUnfinished(RESYNC);
    known.enqueueStarted();
    // The query saw the enqueue's record 1 (committed, answer not back yet); the pump may process it.
    expect(ids(ask(known, records([1])))).toEqual([1]);
    expect(known.candidates(LIMIT, 0)).toBeUndefined();
    known.enqueueEnded(records([1]), 0);
    expect(known.candidates(LIMIT, 0)).toBeUndefined();
    ask(known, []);
    known.enqueueStarted();
    known.enqueueEnded(undefined, 0);
    expect(known.candidates(LIMIT, 0)).toBeUndefined();
  });

  it("drops the answer of a query a commit overlapped: it may hold a record the commit finished (the property's seed -1839652156)", () => {
    const known = new KnownUnfinished(RESYNC);
    known.enqueueStarted();
    known.enqueueEnded(records([1]), 0);
    const token = known.queryStarted(LIMIT);
    const [one] = records([1]);
    known.committed([{ ...one!, status: ProcStatus.SUCCEEDED }]);
    expect(known.queried(records([1]), 0, token).map((r) => r.msgId)).toEqual([1]);
    expect(known.candidates(LIMIT, 0)).toBeUndefined();
  });

  it("after any interleaving of enqueues, queries, commits and forgets, what it gives is the store's run, less an enqueue on its way", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 50 }), (commands) => {
        // The store: every record by id; the pump's memory beside it; at most one enqueue and one
        // query on their way at a time (the intake and the pump each run one step at a time).
        const store = new Map<number, ProcRecord>();
        const known = new KnownUnfinished(RESYNC);
        const unfinished = () => [...store.values()].filter((r) => r.status === ProcStatus.PENDING || r.status === ProcStatus.FAILED).sort((a, b) => a.msgId - b.msgId);
        const answer = (q: UnfinishedQuery) => unfinished().filter((r) => r.msgId >= q.from).slice(0, q.limit);
        let enqueue: { ids: readonly number[]; inserted: readonly number[] | undefined } | undefined;
        let query: { token: UnfinishedQuery; snapshot: ProcRecord[] | undefined } | undefined;
        const commitEnqueue = (e: NonNullable<typeof enqueue>) => {
          if (e.inserted !== undefined) return;
          e.inserted = e.ids.filter((id) => !store.has(id));
          for (const id of e.inserted) store.set(id, newProcRecord(id, id, 0));
        };
        for (const c of commands) {
          switch (c.kind) {
            case "enqueue-start":
              if (enqueue !== undefined) break;
              enqueue = { ids: c.ids, inserted: undefined };
              known.enqueueStarted();
              break;
            case "enqueue-commit":
              if (enqueue !== undefined) commitEnqueue(enqueue);
              break;
            case "enqueue-end":
              if (enqueue === undefined) break;
              if (!c.lost) commitEnqueue(enqueue);
              known.enqueueEnded(c.lost ? undefined : records(enqueue.inserted!), 0);
              enqueue = undefined;
              break;
            case "query-start":
              if (query !== undefined) break;
              {
                const token = known.queryStarted(LIMIT);
                query = { token, snapshot: c.snapshotFirst ? answer(token) : undefined };
              }
              break;
            case "query-end":
              if (query === undefined) break;
              known.queried(query.snapshot ?? answer(query.token), 0, query.token);
              query = undefined;
              break;
            case "commit": {
              // The pump's run: from memory, else from a query; the store refuses one not from its head.
              const given = known.candidates(LIMIT, 0);
              const head = unfinished();
              const run = (given ?? head).slice(0, c.take);
              if (run.some((r, i) => r.msgId !== head[i]?.msgId)) {
                known.forget();
                break;
              }
              const after = run.map((r) => ({ ...r, status: ProcStatus[c.outcome], attempts: r.attempts + 1 }));
              for (const r of after) store.set(r.msgId, r);
              known.committed(after);
              break;
            }
            case "forget":
              known.forget();
              break;
          }
          const given = known.candidates(LIMIT, 0);
          if (given === undefined) continue;
          // Only the records of an enqueue still on its way may be missing; nothing else differs.
          const inFlight = new Set(enqueue?.inserted ?? []);
          const expected = unfinished().filter((r) => !inFlight.has(r.msgId)).slice(0, LIMIT);
          expect(given.map((r) => r.msgId)).toEqual(expected.map((r) => r.msgId));
        }
      }),
      { numRuns: 500 },
    );
  });
});
