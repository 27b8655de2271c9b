import { isMsgxError, type AppendedElsewhere, type BackfillEntry, type BackfillResult, type Mailbox, type MailboxRow, type RawRead } from "@msgx/core";
import { appendIdsAreConsecutive, appendRow, appendRows } from "./append-row.js";
import { AppendedRows } from "./appended-rows.js";
import { AppendedTexts } from "./appended-texts.js";
import { GroupedAppends } from "./grouped-appends.js";
import { backfillRows } from "./backfill-rows.js";
import { quoteMailboxNames, type QuotedMailboxNames } from "./mailbox-names.js";
import { resolveMailboxOptions, type MysqlMailboxOptions, type MysqlMailboxOptionsInput } from "./mailbox-options.js";
import type { MysqlPoolLike } from "./mysql-driver.js";
import { withAutocommit, withConnection } from "./mysql-session.js";
import { readRawRows } from "./read-raw.js";
import { assertIds } from "./safe-id.js";
import { scanRows, type ScanSettings } from "./scan-rows.js";

/**
 * The `Mailbox` port on the upstream's MySQL inbound table (`cminmsgs`, WIRE.md "Mailbox tables";
 * every name from `options.names`), through a mysql2/promise pool (see `mailboxPoolOptions` for
 * the settings it expects).
 *
 * Each call holds one pooled connection for its length; sessions run in UTC, strict mode and
 * READ COMMITTED (`mysql-session.ts`). Driver errors leave as `MsgxError` through
 * `mysql-error-map.ts`: connection loss, refusal and timeouts as `DEPENDENCY_UNAVAILABLE`.
 * It never creates or alters the table (`createMailboxTables` is for tests and demos).
 */
export class MysqlMailbox implements Mailbox {
  readonly options: MysqlMailboxOptions;
  readonly #pool: MysqlPoolLike;
  readonly #names: QuotedMailboxNames;
  readonly #scan: ScanSettings;
  readonly #appended: AppendedTexts;
  readonly #appendedRows: AppendedRows;
  /** Set at the first append: grouped when the server numbers a multi-row INSERT consecutively. */
  #appends: Promise<(rawXml: string, signal?: AbortSignal) => Promise<number>> | null = null;

  constructor(pool: MysqlPoolLike, options: MysqlMailboxOptionsInput = {}) {
    this.#pool = pool;
    this.options = resolveMailboxOptions(options);
    this.#names = quoteMailboxNames(this.options.names);
    this.#scan = {
      names: this.#names,
      onlyValidStatus: this.options.onlyValidStatus,
      pendingIgnoresDateProcessed: this.options.pendingIgnoresDateProcessed,
      upstreamTimeZone: this.options.upstreamTimeZone,
    };
    this.#appended = new AppendedTexts(this.options.appendedTextChars);
    this.#appendedRows = new AppendedRows(this.options.appendedRows);
  }

  /**
   * Every committed row above `afterId`, pending or not: see `scan-rows.ts` for why. When the rows
   * right above `afterId` are ones this process appended (`AppendedRows`), the scan gives those
   * without a query, as far as their ids run consecutively.
   */
  async scan(afterId: number, limit: number, signal?: AbortSignal): Promise<readonly MailboxRow[]> {
    assertIds([afterId], "scan");
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`scan: limit must be a positive integer, got ${limit}`);
    const held = this.#appendedRows.scan(afterId, limit);
    if (held !== undefined) return held;
    return withConnection(this.#pool, this.options.timeouts, "mailbox scan", (sql) => scanRows(sql, this.#scan, afterId, limit), signal);
  }

  /**
   * The raw text of each id; `{ found: false }` only for a row that is not there. A text this
   * mailbox appended and still holds (`appendedTextChars`) is given from memory, once; the rest
   * in one query. The row holds exactly the text sent: strict mode refuses what its column cannot
   * store, and the connection's utf8mb4 carries every character.
   */
  async readRaw(msgIds: readonly number[], signal?: AbortSignal): Promise<ReadonlyMap<number, RawRead>> {
    assertIds(msgIds, "readRaw");
    const held = new Map<number, RawRead>();
    for (const id of msgIds) {
      const text = this.#appended.take(id);
      if (text !== undefined) held.set(id, { found: true, text });
    }
    const missing = msgIds.filter((id) => !held.has(id));
    if (missing.length === 0) return held;
    const read = await withConnection(this.#pool, this.options.timeouts, "mailbox readRaw", (sql) => readRawRows(sql, this.#names, missing), signal);
    return new Map(msgIds.map((id) => [id, held.get(id) ?? read.get(id) ?? { found: false }]));
  }

  /**
   * Sets `DATE_PROCESSED` (UTC) and, unless `backfillSubsystem` is off, the `SUBSYSTEM_*`
   * columns, idempotently, in one autocommit UPDATE per `backfillChunk` entries, plus one read
   * when some rows of the chunk were done before or are gone (`backfill-rows.ts`). Duplicate ids
   * in one call count once (the first entry wins). When a later chunk fails, the call throws
   * although earlier chunks committed; a retry reports those as `alreadyDone`.
   *
   * The UPDATE is its own COMMIT, so a connection lost or timed out while it ran (or during the
   * read after it) leaves as `COMMIT_UNKNOWN`, as `append` does; so does a lock wait timeout,
   * which the error map classes with the outages. That is safe here: the write is idempotent and
   * callers keep the backfill todo of every entry not reported back (the pump leaves it to the
   * sweep, the sweep defers it), so the sweep redoes the call and learns what happened.
   */
  async backfill(entries: readonly BackfillEntry[], signal?: AbortSignal): Promise<BackfillResult> {
    const seen = new Set<number>();
    const distinct = entries.filter((e) => !seen.has(e.msgId) && seen.add(e.msgId));
    assertIds(distinct.map((e) => e.msgId), "backfill");
    const result = { written: [] as number[], alreadyDone: [] as number[], defects: [] as { msgId: number; reason: string }[] };
    const { backfillChunk, timeouts, subsystemColumns, backfillSubsystem } = this.options;
    for (let i = 0; i < distinct.length; i += backfillChunk) {
      const chunk = distinct.slice(i, i + backfillChunk);
      const done = await withAutocommit(
        this.#pool,
        timeouts,
        "mailbox backfill",
        (sql) => backfillRows(sql, this.#names, chunk, backfillSubsystem ? subsystemColumns : null),
        signal,
      );
      result.written.push(...done.written);
      result.alreadyDone.push(...done.alreadyDone);
      result.defects.push(...done.defects);
    }
    return result;
  }

  /**
   * Inserts a row (HTTP ingress) and returns its id once the insert committed: one statement in
   * autocommit, so a connection lost while it ran is `COMMIT_UNKNOWN` (the row may exist).
   */
  async append(rawXml: string, signal?: AbortSignal): Promise<number> {
    const append = await (this.#appends ??= this.#chooseAppends());
    const id = await append(rawXml, signal);
    this.#appendedRows.remember(id, Date.now());
    this.#appended.remember(id, rawXml);
    return id;
  }

  /** Keeps the rows the runner's ingress thread committed, as `append` does, for `scan` and `readRaw`. */
  appendedElsewhere(appends: readonly AppendedElsewhere[]): void {
    for (const a of appends) {
      this.#appendedRows.remember(a.msgId, a.committedAt);
      this.#appended.remember(a.msgId, a.text);
    }
  }

  /** One INSERT per append, or grouped (`appendGrouping`) where the server allows it. */
  async #chooseAppends(): Promise<(rawXml: string, signal?: AbortSignal) => Promise<number>> {
    const { timeouts, upstreamTimeZone, appendGrouping } = this.options;
    const insertOne = (raw: string, signal?: AbortSignal) =>
      withAutocommit(this.#pool, timeouts, "mailbox append", (sql) => appendRow(sql, this.#names, raw, upstreamTimeZone), signal);
    if (appendGrouping === null) return insertOne;
    let ids: { readonly consecutive: boolean; readonly increment: number };
    try {
      ids = await withConnection(this.#pool, timeouts, "mailbox append: id allocation", appendIdsAreConsecutive);
    } catch (e) {
      // Not known yet (the server is down): this append goes alone, the next one asks again.
      if (isMsgxError(e) && e.kind === "DEPENDENCY_UNAVAILABLE") this.#appends = null;
      // A server that cannot say (not InnoDB, no such variable) gets one INSERT per append.
      return insertOne;
    }
    if (!ids.consecutive) return insertOne;
    const grouped = new GroupedAppends(
      (raws) => withAutocommit(this.#pool, timeouts, "mailbox append", (sql) => appendRows(sql, this.#names, raws, upstreamTimeZone, ids.increment)),
      (raw) => insertOne(raw),
      appendGrouping,
    );
    return (raw, signal) => grouped.append(raw, signal);
  }
}
