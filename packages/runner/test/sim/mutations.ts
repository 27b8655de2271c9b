import { MsgxError, type DeliveryPort, type Mailbox, type PipelineStore, type PipelineTx } from "@msgx/core";
import { simConfig, type SimWorld } from "./sim-world.js";

/**
 * One guard of the exchange, removed for the mutation check (issue 35, item 5). Every mutation is
 * planted from outside the production code: a wrapped port, a patched fake, the configuration, or
 * the simulation's own composition. docs/simulation.md has the table of them and the seeds that
 * caught each.
 */
export interface Mutation {
  readonly guard: string;
  /** What the mutation does instead, in a few words. */
  readonly how: string;
  readonly plant: (world: SimWorld) => void;
}

/** Wraps the named `AppParts` member of every runner. */
const wrapping =
  (member: string, wrap: (port: object) => object) =>
  (world: SimWorld): void => {
    world.mutations.wrapPort = <T extends object>(name: string, port: T): T => (name === member ? (wrap(port) as T) : port);
  };

export const MUTATIONS: readonly Mutation[] = [
  {
    guard: "the fence check (a stale leader's commit is refused FENCED)",
    how: "the pipeline store drops the fence of every transaction and every commitRun",
    plant: (world) => {
      const store = world.store;
      const transaction = store.transaction.bind(store);
      store.transaction = (fn) => transaction(fn, {});
      const commitRun = store.commitRun.bind(store);
      store.commitRun = (decision, { generation }) => commitRun(decision, { generation });
    },
  },
  {
    guard: "the lease grant's epoch bump (a new leader fences the old one)",
    how: "a lease grant leaves the pipeline's epoch as it was",
    plant: (world) => {
      const row = world.leaseRow;
      world.lease = { tryAcquire: (h, ttl) => row.tryAcquire(h, ttl), renew: (h, e, ttl) => row.renew(h, e, ttl), release: (h, e) => row.release(h, e) };
    },
  },
  {
    guard: "the lease expiry check (a leader starts no step past its window, and stops when its lease is lost)",
    how: "the runner's steps may always start and the lease keeper's loss is not watched",
    plant: (world) => {
      world.mutations.ignoreLeaseWindow = true;
    },
  },
  {
    guard: "the safe horizon (the pump waits for a gap below it)",
    how: "pipeline.gapGraceMs = 0: an open insert is taken as rolled back at once",
    plant: (world) => {
      world.config = simConfig({ "pipeline.gapGraceMs": "0" });
    },
  },
  {
    guard: "identity dedupe (a resent message is SKIPPED as a duplicate)",
    how: "the pump's transaction and its loadRunState see no identity owners",
    plant: wrapping("store", (port) => {
      const store = port as PipelineStore;
      return new Proxy(store, {
        get: (t, key) =>
          key === "transaction"
            ? <T>(fn: (tx: PipelineTx) => Promise<T>, o?: { readonly fence?: number }) => t.transaction((tx) => fn({ ...tx, identityOwners: async () => new Map() }), o)
            : key === "loadRunState"
              ? async (keys: readonly string[], flids: readonly string[]) => ({ ...(await t.loadRunState(keys, flids)), owners: new Map() })
              : (Reflect.get(t, key) as unknown),
      });
    }),
  },
  {
    guard: "the FAILED-head rule (a relay sends nothing of a target behind a head in backoff)",
    how: "the outbox's due events skip a head in backoff instead of stopping at it",
    plant: (world) => {
      const outbox = world.outbox;
      const pending = outbox.pending.bind(outbox);
      const all = (world.store.tables.events);
      outbox.pending = async (target, now, limit, afterEventId = 0) => {
        await pending(target, now, 0, afterEventId);
        return all.filter((e) => e.target === target && e.status === "PENDING" && e.eventId > afterEventId && (e.nextAttemptAt ?? 0) <= now).slice(0, limit);
      };
    },
  },
  {
    guard: "mark-sent-after-ack (an event is marked SENT only once the broker acknowledged it)",
    how: "the relay's broker port answers a failed send as sent",
    plant: wrapping("delivery", (port) => {
      const delivery = port as DeliveryPort;
      return { send: async (records: Parameters<DeliveryPort["send"]>[0], signal?: AbortSignal) => delivery.send(records, signal).catch(() => records.map(() => null)) };
    }),
  },
  {
    guard: "outage classification (an outage spends no attempt of a message or an event)",
    how: "the state store's outage errors reach the pump and the relays as INFRA faults",
    plant: wrapping("store", (port) => {
      const classify = (e: unknown) => (e instanceof MsgxError && (e.kind === "DEPENDENCY_UNAVAILABLE" || e.kind === "COMMIT_UNKNOWN") ? new MsgxError("INFRA", e.message) : e);
      return new Proxy(port, {
        get: (t, key) => {
          const value = Reflect.get(t, key) as unknown;
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => {
            const r = (value as (...a: unknown[]) => unknown).apply(t, args);
            return r instanceof Promise ? r.catch((e: unknown) => Promise.reject(classify(e))) : r;
          };
        },
      });
    }),
  },
  {
    guard: "the backfill sweep (a lost mailbox write-back is redone)",
    how: "the sweep finds no write-back due",
    plant: wrapping("store", (port) =>
      new Proxy(port as PipelineStore, { get: (t, key) => (key === "dueBackfill" ? async () => [] : (Reflect.get(t, key) as unknown)) }),
    ),
  },
  {
    guard: "an inconclusive check-back confirms nothing (no verdict, no send)",
    how: "a check-back without a verdict (an error, a timeout, unknown) is taken as confirm",
    plant: (world) => {
      world.mutations.wrapChecker = (checker) => async (message, signal) => {
        const answer = await checker(message, signal).catch(() => "unknown" as const);
        return answer === "unknown" ? "confirm" : answer;
      };
    },
  },
  {
    guard: "the RESP guard (a SCHD/RESP that answers no open request changes nothing)",
    how: "the mailbox hands the runner every SCHD/RESP as a SCHD/DNLD, applied unasked",
    plant: wrapping("mailbox", (port) => {
      const mailbox = port as Mailbox;
      const unasked = (text: string) => text.replace("<TYPE>SCHD</TYPE><STYP>RESP</STYP>", "<TYPE>SCHD</TYPE><STYP>DNLD</STYP>");
      return new Proxy(mailbox, {
        get: (t, key) =>
          key === "readRaw"
            ? async (ids: readonly number[]) => new Map([...(await t.readRaw(ids))].map(([id, read]) => [id, read.found ? { ...read, text: unasked(read.text) } : read]))
            : (Reflect.get(t, key) as unknown),
      });
    }),
  },
  {
    guard: "the snapshot's all-or-nothing check (a faulty snapshot is refused whole)",
    how: "flight.schdRecsCheck = warn: a truncated snapshot (RECS 3, 2 FLTR) is applied as far as it goes",
    plant: (world) => {
      world.config = simConfig({ "flight.schdRecsCheck": "warn" });
    },
  },
  {
    guard: "producer fencing (a newer leader's claim of the transactional id refuses the older leader's sends)",
    how: "every runner sends through the broker's plain port, with no transactional id",
    plant: (world) => {
      world.mutations.unfencedProducer = true;
    },
  },
];

/** How many seeds a mutation may take to be caught: the bound the mutation check asserts. */
export const MUTATION_SEED_BOUND = 300;

/** The first seed (from 1) whose run fails with `mutation` planted, with its failure; undefined if none within the bound. */
export async function firstCatch(mutation: Mutation, simulate: typeof import("./simulate.js").simulate): Promise<{ seed: number; failure: string } | undefined> {
  for (let seed = 1; seed <= MUTATION_SEED_BOUND; seed++) {
    const r = await simulate(seed, { mutate: mutation.plant });
    if (r.failure !== undefined) return { seed, failure: r.failure };
  }
  return undefined;
}
