import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ProcStatus, type ProcRecord } from "@msgx/core";
import { KnownUnfinished } from "../../src/processing/known-unfinished.js";
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

describe("KnownUnfinished (the pump's runs from memory)", () => {
  it("is unknown until a query returned everything, and a query at its limit stays unknown", () => {
    const known = new KnownUnfinished(RESYNC);
    expect(known.candidates(LIMIT, 0)).toBeUndefined();
    known.queried(records([1, 2, 3, 4, 5]), LIMIT, 0, known.queryStarted());
    expect(known.candidates(LIMIT, 0)).toBeUndefined();
    known.queried(records([1, 2]), LIMIT, 0, known.queryStarted());
    expect(known.candidates(LIMIT, 0)?.map((r) => r.msgId)).toEqual([1, 2]);
  });

  it("asks again when idle for resyncMs: a replay elsewhere is found without a commit to refuse", () => {
    const known = new KnownUnfinished(RESYNC);
    known.queried([], LIMIT, 0, known.queryStarted());
    expect(known.candidates(LIMIT, RESYNC - 1)).toEqual([]);
    expect(known.candidates(LIMIT, RESYNC)).toBeUndefined();
  });

  it("does not keep a query that ran while an enqueue was on its way, nor anything after a lost enqueue", () => {
    const known = new KnownUnfinished(RESYNC);
    known.enqueueStarted();
    // The query saw the enqueue's record 1 (committed, answer not back yet); the pump may process it.
    known.queried(records([1]), LIMIT, 0, known.queryStarted());
    expect(known.candidates(LIMIT, 0)).toBeUndefined();
    known.enqueueEnded(records([1]), 0);
    expect(known.candidates(LIMIT, 0)).toBeUndefined();
    known.queried([], LIMIT, 0, known.queryStarted());
    known.enqueueStarted();
    known.enqueueEnded(undefined, 0);
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
        let enqueue: { ids: readonly number[]; inserted: readonly number[] | undefined } | undefined;
        let query: { token: ReturnType<KnownUnfinished["queryStarted"]>; snapshot: ProcRecord[] | undefined } | undefined;
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
              query = { token: known.queryStarted(), snapshot: c.snapshotFirst ? unfinished().slice(0, LIMIT) : undefined };
              break;
            case "query-end":
              if (query === undefined) break;
              known.queried(query.snapshot ?? unfinished().slice(0, LIMIT), LIMIT, 0, query.token);
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
