import type { ConsumeLog, ConsumeLogEntry } from "@msgx/reliable";
import type { Kysely, Transaction } from "kysely";
import { pgCall } from "../pg-error-map.js";
import { pgTransaction } from "../pg-transaction.js";
import { claimConsume } from "./reliable-message-queries.js";
import { purgeConsumeLog } from "./consume-log-queries.js";
import type { ReliableMessageConsumeLogDatabase } from "./reliable-message-tables.js";

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
export class PgConsumeLog<DB = ReliableMessageConsumeLogDatabase> implements ConsumeLog<Transaction<DB>> {
  readonly #db: Kysely<DB>;

  constructor(db: Kysely<DB>) {
    this.#db = db;
  }

  async transaction<T>(fn: (tx: Transaction<DB>) => Promise<T>): Promise<T> {
    return pgTransaction(this.#db, "consume log", async (trx) => {
      return await fn(trx);
    });
  }

  claim(tx: Transaction<DB>, entry: ConsumeLogEntry): Promise<boolean> {
    return pgCall("consume log claim", () => claimConsume(tx, entry));
  }

  /** One autocommit DELETE of at most `limit` rows, outside any business transaction. */
  purge(before: number, limit: number): Promise<number> {
    return pgCall("consume log purge", () => purgeConsumeLog(this.#db, before, limit));
  }
}
