import { quoteMailboxNames, type QuotedMailboxNames } from "./mailbox-names.js";
import { resolveMailboxOptions, type MysqlMailboxOptions, type MysqlMailboxOptionsInput } from "./mailbox-options.js";
import type { MysqlPoolLike } from "./mysql-driver.js";
import { withConnection, withTransaction } from "./mysql-session.js";
import { findOutbound } from "./find-outbound.js";
import { insertOutbound } from "./insert-outbound.js";
import type { OutboundMailbox, OutboundQuery, OutboundRow } from "@msgx/core";
import { assertIds } from "./safe-id.js";

/**
 * `OutboundMailbox` on the upstream's outbound table (`coutmsgs`, every name from
 * `options.names`), through a mysql2/promise pool.
 */
export class MysqlOutboundMailbox implements OutboundMailbox {
  readonly options: MysqlMailboxOptions;
  readonly #pool: MysqlPoolLike;
  readonly #names: QuotedMailboxNames;

  constructor(pool: MysqlPoolLike, options: MysqlMailboxOptionsInput = {}) {
    this.#pool = pool;
    this.options = resolveMailboxOptions(options);
    this.#names = quoteMailboxNames(this.options.names);
  }

  /** Inserts one request and returns its id after COMMIT (`COMMIT_UNKNOWN` if that is unclear). */
  async insert(rawXml: string, routingId: string, signal?: AbortSignal): Promise<number> {
    if (routingId === "") throw new RangeError("outbound insert: routingId must not be empty");
    return withTransaction(
      this.#pool,
      this.options.timeouts,
      "outbound insert",
      (sql) => insertOutbound(sql, this.#names, rawXml, routingId, this.options.upstreamTimeZone),
      signal,
    );
  }

  /** Committed rows by id, or by exact content and routing id (ascending by id). */
  async find(query: OutboundQuery, signal?: AbortSignal): Promise<readonly OutboundRow[]> {
    if ("ids" in query) assertIds(query.ids, "outbound find");
    return withConnection(
      this.#pool,
      this.options.timeouts,
      "outbound find",
      (sql) => findOutbound(sql, this.#names, query, this.options.upstreamTimeZone),
      signal,
    );
  }
}
