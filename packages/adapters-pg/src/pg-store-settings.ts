import { systemClock, type Clock } from "@msgx/core";
import { DEFAULT_LOCK_NAMESPACE, lockKeys, type LockKeys } from "./lock-keys.js";
import { conflictAttemptsOf } from "./pg-transaction.js";

/** The options every transactional PostgreSQL store reads. */
export interface PgStoreOptions {
  /** Time for the timestamps it writes (and the pipeline store's backfill schedules). Default: the system clock. */
  readonly clock?: Clock;
  /** Serialization failures and deadlocks (CONFLICT) are retried this many times in all. Default 3. */
  readonly conflictAttempts?: number;
}

/** A store's {@link PgStoreOptions} with their defaults applied. */
export class PgStoreSettings {
  readonly clock: Clock;
  readonly conflictAttempts: number;

  constructor(options: PgStoreOptions) {
    this.clock = options.clock ?? systemClock;
    this.conflictAttempts = conflictAttemptsOf(options.conflictAttempts);
  }
}

/** The options of a store whose writes take the pipeline lock (the pipeline and maintenance stores). */
export interface PipelineStoreOptions extends PgStoreOptions {
  /**
   * Names the advisory locks (see `lockKeys`); the leadership of the same deployment must use the
   * same namespace. Default `msgx`; use the schema name when several deployments share a database.
   */
  readonly lockNamespace?: string;
}

/** A pipeline-locked store's settings, and the lock each of its transactions takes. */
export class PipelineStoreSettings extends PgStoreSettings {
  readonly keys: LockKeys;

  /** `keys`, when given, wins over `lockNamespace` (a store paired with another's keys). */
  constructor(options: PipelineStoreOptions, keys?: LockKeys) {
    super(options);
    this.keys = keys ?? lockKeys(options.lockNamespace ?? DEFAULT_LOCK_NAMESPACE);
  }

  /** The lock of one `pipelineTransaction`: `what` names it in errors, `fence` is the caller's epoch. */
  lock(what: string, fence: number | undefined) {
    return { keys: this.keys, what, fence, conflictAttempts: this.conflictAttempts };
  }
}
