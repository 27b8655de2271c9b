import { MsgxError, systemClock, type Clock } from "@msgx/core";
import { Kysely, PostgresDialect } from "kysely";
import { hostname } from "node:os";
import { DEFAULT_LOCK_NAMESPACE, lockKeys, type LockKeys } from "./lock-keys.js";
import { mapPgError, pgCall } from "./pg-error-map.js";
import { bumpEpoch } from "./queries/pipeline-epoch.js";
import type { MsgxDatabase } from "./rows/tables.js";

/** The part of a node-postgres `Client` leadership uses (structural: no runtime import of pg). */
export interface LeadershipClient {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; command?: string; rowCount?: number | null }>;
  end(): Promise<void>;
  on(event: "error", listener: (e: Error) => void): unknown;
  on(event: "end", listener: () => void): unknown;
}

export interface PgLeadershipOptions {
  /** Makes a new, unconnected dedicated client (never a pooled one: the lock lives with the session). */
  readonly client: () => LeadershipClient | Promise<LeadershipClient>;
  /** Must equal the pipeline store's `lockNamespace`. Default `msgx`. */
  readonly lockNamespace?: string;
  /** Written to `leadership.holder`. Default `<hostname>:<pid>`. */
  readonly holder?: string;
  /** A leader checks its connection this often; a failed check is a loss. Default 5 s. */
  readonly heartbeatMs?: number;
  readonly clock?: Clock;
}

/** Why leadership ended. */
export type LossListener = (reason: string) => void;

/**
 * Leadership by a session advisory lock held on a dedicated connection (SPEC §2.8).
 *
 * - `acquire()` tries `pg_try_advisory_lock` once; on success it bumps `leadership.epoch` (under
 *   the pipeline lock, on the same session) and returns the new epoch: the fence every pipeline
 *   transaction of this leader carries. Undefined when another process leads.
 * - `acquireWhenFree()` is the standby: it polls `acquire()` until it leads or is aborted.
 * - `watch()` reports the loss of the connection (ended, errored, or a failed heartbeat). The
 *   server releases the lock when the session ends, so a standby takes over with a higher epoch
 *   and every later commit of this leader is refused as FENCED.
 */
export class PgLeadership {
  readonly #options: PgLeadershipOptions;
  readonly #keys: LockKeys;
  readonly #holder: string;
  readonly #clock: Clock;
  readonly #listeners = new Set<LossListener>();
  #client: LeadershipClient | undefined;
  #epoch: number | undefined;
  #lost: string | undefined;
  #heartbeat: ReturnType<typeof setInterval> | undefined;

  constructor(options: PgLeadershipOptions) {
    this.#options = options;
    this.#keys = lockKeys(options.lockNamespace ?? DEFAULT_LOCK_NAMESPACE);
    this.#holder = options.holder ?? `${hostname()}:${process.pid}`;
    this.#clock = options.clock ?? systemClock;
  }

  /** The epoch of the current leadership, or undefined when not leading. */
  get epoch(): number | undefined {
    return this.#lost === undefined ? this.#epoch : undefined;
  }

  get isLeader(): boolean {
    return this.epoch !== undefined;
  }

  /** Tries once. Returns the new epoch when this process now leads, undefined when another does. */
  async acquire(): Promise<number | undefined> {
    if (this.isLeader) return this.#epoch;
    const client = await this.#connected();
    const [cls, obj] = this.#keys.leadership;
    let locked: boolean;
    try {
      const { rows } = await client.query("SELECT pg_try_advisory_lock($1::integer, $2::integer) AS locked", [cls, obj]);
      locked = rows[0]?.locked === true;
    } catch (e) {
      await this.#drop();
      throw mapPgError(e, "leadership try-lock");
    }
    if (!locked) return undefined;
    try {
      const db = sessionKysely(client);
      const epoch = await db.transaction().execute((trx) => bumpEpoch(trx, this.#keys, this.#holder, this.#clock.now()));
      this.#epoch = epoch;
      this.#lost = undefined;
      this.#startHeartbeat(client);
      return epoch;
    } catch (e) {
      await this.#drop();
      throw mapPgError(e, "leadership epoch bump");
    }
  }

  /** Standby: polls `acquire()` every `pollMs` until this process leads. Outages are polled through. */
  async acquireWhenFree(options: { readonly pollMs?: number; readonly signal?: AbortSignal } = {}): Promise<number> {
    const pollMs = options.pollMs ?? 1_000;
    for (;;) {
      options.signal?.throwIfAborted();
      try {
        const epoch = await this.acquire();
        if (epoch !== undefined) return epoch;
      } catch (e) {
        if (!(e instanceof MsgxError && e.kind === "DEPENDENCY_UNAVAILABLE")) throw e;
      }
      await sleep(pollMs, options.signal);
    }
  }

  /** Calls `onLost` once when the leadership is lost. Returns an unsubscribe function. */
  watch(onLost: LossListener): () => void {
    if (this.#lost !== undefined && this.#epoch !== undefined) {
      queueMicrotask(() => onLost(this.#lost!));
      return () => undefined;
    }
    this.#listeners.add(onLost);
    return () => this.#listeners.delete(onLost);
  }

  /** Gives the lock up and closes the connection (a clean shutdown). */
  async release(): Promise<void> {
    const client = this.#client;
    this.#stopHeartbeat();
    this.#listeners.clear();
    this.#epoch = undefined;
    if (client === undefined) return;
    const [cls, obj] = this.#keys.leadership;
    await client.query("SELECT pg_advisory_unlock($1::integer, $2::integer)", [cls, obj]).catch(() => undefined);
    await this.#drop();
  }

  async #connected(): Promise<LeadershipClient> {
    if (this.#client !== undefined) return this.#client;
    const client = await this.#options.client();
    // An 'error' without a listener would crash the process: every dedicated client gets one.
    client.on("error", (e) => this.#onLost(client, `leadership connection error: ${e.message}`));
    client.on("end", () => this.#onLost(client, "leadership connection ended"));
    await pgCall("leadership connect", () => client.connect());
    this.#client = client;
    return client;
  }

  #onLost(client: LeadershipClient, reason: string): void {
    if (client !== this.#client) return;
    this.#client = undefined;
    this.#stopHeartbeat();
    if (this.#epoch === undefined || this.#lost !== undefined) return;
    this.#lost = reason;
    for (const listener of [...this.#listeners]) listener(reason);
    this.#listeners.clear();
  }

  #startHeartbeat(client: LeadershipClient): void {
    this.#stopHeartbeat();
    this.#heartbeat = setInterval(() => {
      client.query("SELECT 1").catch((e: unknown) => {
        this.#onLost(client, `leadership heartbeat failed: ${e instanceof Error ? e.message : String(e)}`);
        client.end().catch(() => undefined);
      });
    }, this.#options.heartbeatMs ?? 5_000);
    this.#heartbeat.unref?.();
  }

  #stopHeartbeat(): void {
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  async #drop(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    this.#stopHeartbeat();
    await client?.end().catch(() => undefined);
  }
}

/** A kysely instance over the one dedicated session (its "pool" always hands out that client). */
function sessionKysely(client: LeadershipClient): Kysely<MsgxDatabase> {
  const connection = {
    query: (text: string, values: readonly unknown[]) => client.query(text, [...values]),
    release: () => undefined,
  };
  return new Kysely<MsgxDatabase>({
    dialect: new PostgresDialect({ pool: { connect: async () => connection as never, end: async () => undefined } }),
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}

/**
 * Bumps the leadership epoch through any kysely instance (tests, tools, the contract harness). A
 * running leader's fence becomes stale. Real leaders use {@link PgLeadership}.
 */
export async function bumpLeadershipEpoch<DB>(
  db: Kysely<DB>,
  options: { readonly lockNamespace?: string; readonly holder?: string; readonly clock?: Clock } = {},
): Promise<number> {
  const keys = lockKeys(options.lockNamespace ?? DEFAULT_LOCK_NAMESPACE);
  const now = (options.clock ?? systemClock).now();
  return pgCall("bump epoch", () =>
    (db as unknown as Kysely<MsgxDatabase>).transaction().execute((trx) => bumpEpoch(trx, keys, options.holder ?? "manual", now)),
  );
}
