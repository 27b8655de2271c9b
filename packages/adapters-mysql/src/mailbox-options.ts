import { CMINMSGS_SUBSYSTEM_COLUMNS, type SubsystemColumns } from "@msgx/core";
import { DEFAULT_MYSQL_TIMEOUTS, type MysqlTimeouts } from "./mysql-session.js";
import { zoneOffsetMinutes } from "./mysql-datetime.js";
import { DEFAULT_APPEND_GROUPING, type AppendGrouping } from "./grouped-appends.js";
import { DEFAULT_MAILBOX_NAMES, resolveMailboxNames, type MailboxNames, type MailboxNamesInput } from "./mailbox-names.js";

export interface MysqlMailboxOptions {
  /** The upstream's table and column names (`mailbox-names.ts`); default its DDL. */
  readonly names: MailboxNames;
  /** Only rows with `STATUS = 'VALID'` are pending (WIRE.md); off by default. */
  readonly onlyValidStatus: boolean;
  /**
   * For a shadow run beside the system that owns the mailbox: a row is pending whatever its
   * `DATE_PROCESSED` says, because the shadowed system writes that column and would otherwise
   * race us for every row. Off by default; see `docs/mailbox.md` "Shadow mode".
   */
  readonly pendingIgnoresDateProcessed: boolean;
  /**
   * The fixed offset in which the upstream writes its own `DATETIME`s (`DATE_RECEIVED`,
   * `DATE_SENT`), e.g. `+08:00`. `DATE_PROCESSED` is always written in UTC.
   */
  readonly upstreamTimeZone: string;
  /**
   * Backfill writes the META into the `SUBSYSTEM_*` columns besides `DATE_PROCESSED` (ours,
   * WIRE.md); false writes `DATE_PROCESSED` only, as the upstream's own client does. Default true.
   */
  readonly backfillSubsystem: boolean;
  readonly subsystemColumns: SubsystemColumns;
  readonly timeouts: MysqlTimeouts;
  /** Rows per backfill statement; a larger call is split into statements of this size (each its own commit). */
  readonly backfillChunk: number;
  /**
   * UTF-16 code units of appended texts kept in memory for `readRaw` (`AppendedTexts`): the text
   * of a row this process appended is served from memory once instead of read back. 0 reads
   * every text from the table (use it when a trigger on the upstream's table rewrites
   * `CLOB_MSG`). Default 8 Mi code units (16 MiB).
   */
  readonly appendedTextChars: number;
  /**
   * Rows this process appended held in memory for `scan` (`AppendedRows`): when the rows right
   * above the intake's cursor are all appended here, the scan gives them without a query. 0 reads
   * every scan from the table (use it when a trigger on the upstream's table changes `STATUS`,
   * `DATE_PROCESSED` or `DATE_RECEIVED` of an inserted row). Default 10,000.
   */
  readonly appendedRows: number;
  /**
   * Appends that arrive while others are being written go together in one multi-row INSERT
   * (`GroupedAppends`), when the server numbers such an INSERT's rows consecutively
   * (`innodb_autoinc_lock_mode` 0 or 1, checked at the first append); otherwise, or with `null`,
   * each append is its own INSERT.
   */
  readonly appendGrouping: AppendGrouping | null;
}

export const DEFAULT_MYSQL_MAILBOX_OPTIONS: MysqlMailboxOptions = {
  names: DEFAULT_MAILBOX_NAMES,
  onlyValidStatus: false,
  pendingIgnoresDateProcessed: false,
  upstreamTimeZone: "+00:00",
  backfillSubsystem: true,
  subsystemColumns: CMINMSGS_SUBSYSTEM_COLUMNS,
  timeouts: DEFAULT_MYSQL_TIMEOUTS,
  backfillChunk: 500,
  appendedTextChars: 8 * 1024 * 1024,
  appendedRows: 10_000,
  appendGrouping: DEFAULT_APPEND_GROUPING,
};

/** Options given in part, merged over the defaults one level deep. */
export type MysqlMailboxOptionsInput = Partial<Omit<MysqlMailboxOptions, "names" | "timeouts" | "subsystemColumns" | "appendGrouping">> & {
  readonly appendGrouping?: Partial<AppendGrouping> | null;
  /** Names left out keep the upstream's. */
  readonly names?: MailboxNamesInput;
  readonly timeouts?: Partial<MysqlTimeouts>;
  readonly subsystemColumns?: Partial<SubsystemColumns>;
};

/** Merges `input` over the defaults and checks it (a `RangeError` names what is wrong). */
export function resolveMailboxOptions(input: MysqlMailboxOptionsInput = {}): MysqlMailboxOptions {
  const d = DEFAULT_MYSQL_MAILBOX_OPTIONS;
  const options: MysqlMailboxOptions = {
    ...d,
    ...input,
    names: resolveMailboxNames(input.names),
    timeouts: { ...d.timeouts, ...input.timeouts },
    subsystemColumns: { ...d.subsystemColumns, ...input.subsystemColumns },
    appendGrouping: input.appendGrouping === null ? null : { ...DEFAULT_APPEND_GROUPING, ...input.appendGrouping },
  };
  for (const [k, v] of Object.entries(options.appendGrouping ?? {})) {
    if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`appendGrouping.${k} must be a positive integer, got ${String(v)}`);
  }
  zoneOffsetMinutes(options.upstreamTimeZone);
  if (!Number.isInteger(options.backfillChunk) || options.backfillChunk < 1) {
    throw new RangeError(`backfillChunk must be a positive integer, got ${options.backfillChunk}`);
  }
  if (!Number.isSafeInteger(options.appendedTextChars) || options.appendedTextChars < 0) {
    throw new RangeError(`appendedTextChars must be a non-negative integer, got ${options.appendedTextChars}`);
  }
  if (!Number.isSafeInteger(options.appendedRows) || options.appendedRows < 0) {
    throw new RangeError(`appendedRows must be a non-negative integer, got ${options.appendedRows}`);
  }
  for (const [k, v] of Object.entries(options.timeouts)) {
    if (!(typeof v === "number" && v > 0 && Number.isFinite(v))) throw new RangeError(`timeouts.${k} must be a positive number`);
  }
  return options;
}
