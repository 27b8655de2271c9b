import type { ConsumeLog, ConsumeLogEntry } from "@msgx/core";
import type { ControlledTransaction, Kysely, Transaction } from "kysely";
import { mapPgError, pgCall } from "../pg-error-map.js";
import { claimConsume } from "./operations/claim-consume.js";

/**
 * `ConsumeLog` in the consumer's own PostgreSQL database (table `reliable_message_consume_log`,
 * migration `reliableMessageConsumeLogMigration`). The transaction handle is a kysely
 * `Transaction` over the consumer's schema: the handler writes its business rows through it, so
 * they commit with the claim or not at all.
 *
 * Errors of BEGIN, the claim and COMMIT leave as `MsgxError` (a connection lost during COMMIT as
 * `COMMIT_UNKNOWN`: the redelivery then finds the claim or not); errors the handler throws are
 * rethrown unchanged after the rollback.
 */
export class PgConsumeLog<DB = any> implements ConsumeLog<Transaction<DB>> {
  readonly #db: Kysely<DB>;

  constructor(db: Kysely<DB>) {
    this.#db = db;
  }

  async transaction<T>(fn: (tx: Transaction<DB>) => Promise<T>): Promise<T> {
    const trx = await pgCall("consume log begin", () => this.#db.startTransaction().execute());
    let result: T;
    try {
      result = await fn(trx);
    } catch (e) {
      await rollbackQuietly(trx);
      throw e;
    }
    try {
      await trx.commit().execute();
    } catch (e) {
      await rollbackQuietly(trx);
      throw mapPgError(e, "consume log commit", "commit");
    }
    return result;
  }

  claim(tx: Transaction<DB>, entry: ConsumeLogEntry): Promise<boolean> {
    return pgCall("consume log claim", () => claimConsume(tx, entry));
  }
}

async function rollbackQuietly<DB>(trx: ControlledTransaction<DB>): Promise<void> {
  if (trx.isCommitted || trx.isRolledBack) return;
  await trx.rollback().execute().catch(() => undefined);
}
