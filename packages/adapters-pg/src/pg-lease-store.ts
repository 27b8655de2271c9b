import type { LeaseGrant, LeaseRefusal, LeaseStore } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { DEFAULT_LOCK_NAMESPACE, lockKeys, type LockKeys } from "./lock-keys.js";
import { pgCall } from "./pg-error-map.js";
import { pipelineEpoch } from "./queries/pipeline-epoch.js";
import type { Db } from "./queries/db.js";
import type { MsgxDatabase } from "./rows/tables.js";

/** The lease is free, lapsed, or already `holder`'s, by the database clock at this statement. */
const leaseOpenTo = (holder: string) =>
  sql<boolean>`(holder = ${holder} OR lease_until IS NULL OR lease_until < clock_timestamp())`;
const leaseEnd = (ttlMs: number) => sql`clock_timestamp() + make_interval(secs => ${ttlMs}::bigint / 1000.0)`;

/**
 * The pipeline lease on the `leadership` row (`0020_leadership_lease`), timed by the database's
 * `clock_timestamp()` only, so the runners' clocks never meet. Every call is one short
 * transaction on the pool: nothing stays open between calls, so a frozen holder keeps no lock.
 *
 * `tryAcquire` reads the row first and takes the pipeline lock only when the lease is open to the
 * caller, so a standby's polls never queue behind the leader's pipeline transactions; under the
 * lock it checks again and bumps the epoch (`bumpEpoch`'s order: a pipeline transaction of the old
 * leader committed before, or is FENCED after). A leader frozen INSIDE a pipeline transaction holds
 * that lock until the server's `idle_in_transaction_session_timeout` ends its session: the runner
 * sets it below the lease's ttl.
 */
export class PgLeaseStore implements LeaseStore {
  readonly #db: Db;
  readonly #keys: LockKeys;

  constructor(db: Kysely<MsgxDatabase>, options: { readonly lockNamespace?: string } = {}) {
    this.#db = db;
    this.#keys = lockKeys(options.lockNamespace ?? DEFAULT_LOCK_NAMESPACE);
  }

  tryAcquire(holder: string, ttlMs: number): Promise<LeaseGrant | undefined> {
    return pgCall("lease acquire", async () => {
      const open = await sql<{ open: boolean }>`SELECT ${leaseOpenTo(holder)} AS open FROM leadership WHERE name = 'pipeline'`.execute(this.#db);
      // No row yet (a schema migrated but never led): the upsert below creates it.
      if (open.rows[0]?.open === false) return undefined;
      return this.#db.transaction().execute(async (trx) => {
        await pipelineEpoch(trx, this.#keys);
        const { rows } = await sql<{ epoch: unknown; until: unknown }>`
          INSERT INTO leadership AS l (name, epoch, holder, acquired_at, lease_until)
          VALUES ('pipeline', 1, ${holder}, clock_timestamp(), ${leaseEnd(ttlMs)})
          ON CONFLICT (name) DO UPDATE
            SET epoch = l.epoch + 1, holder = EXCLUDED.holder, acquired_at = EXCLUDED.acquired_at, lease_until = EXCLUDED.lease_until
            WHERE l.holder = ${holder} OR l.lease_until IS NULL OR l.lease_until < clock_timestamp()
          RETURNING epoch, extract(epoch FROM lease_until) * 1000 AS until`.execute(trx);
        const row = rows[0];
        return row === undefined ? undefined : { epoch: Number(row.epoch), until: Number(row.until) };
      });
    });
  }

  renew(holder: string, epoch: number, ttlMs: number): Promise<number | LeaseRefusal> {
    return pgCall("lease renew", async () => {
      const { rows } = await sql<{ until: unknown }>`
        UPDATE leadership SET lease_until = ${leaseEnd(ttlMs)}
        WHERE name = 'pipeline' AND holder = ${holder} AND epoch = ${epoch}
        RETURNING extract(epoch FROM lease_until) * 1000 AS until`.execute(this.#db);
      if (rows[0] !== undefined) return Number(rows[0].until);
      const now = await sql<{ epoch: unknown; holder: string | null }>`SELECT epoch, holder FROM leadership WHERE name = 'pipeline'`.execute(this.#db);
      const row = now.rows[0];
      return { refused: `the lease is held with epoch ${String(row?.epoch ?? 0)} by ${row?.holder ?? "no one"}` };
    });
  }

  release(holder: string, epoch: number): Promise<void> {
    return pgCall("lease release", async () => {
      await sql`UPDATE leadership SET holder = NULL, lease_until = NULL WHERE name = 'pipeline' AND holder = ${holder} AND epoch = ${epoch}`.execute(this.#db);
    });
  }
}
