import { MsgxError } from "@msgx/core";
import { TaskRequestError } from "./task-request-error.js";

/**
 * The human task number (seed 001's `taskNo`, `T202607130001`): `T`, the day of creation as
 * `yyyyMMdd` in the task service's time zone, and that day's sequence number, 4 digits, wider once
 * a day has more than 9,999 tasks. The store hands out the sequence (`TaskTx.nextTaskSeq`); this
 * file is the one place that says how a number reads.
 */
export const TASK_NO_PATTERN = /^T[0-9]{8}[0-9]{4,12}$/;

/** The default time zone of the day in a task number. */
export const DEFAULT_TASK_NO_TIME_ZONE = "UTC";

/** `T` + day + the sequence, zero-padded to 4 digits (wider past 9999). */
export const formatTaskNo = (day: string, seq: number): string => `T${day}${String(seq).padStart(4, "0")}`;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The `Intl` formatter of `yyyy-MM-dd` parts in `timeZone`; throws `MsgxError("CONFIG")` for a zone `Intl` does not know. */
function dayFormatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", calendar: "gregory", numberingSystem: "latn" });
    } catch {
      throw new MsgxError("CONFIG", `not a time zone: "${timeZone}" (an IANA name such as Asia/Shanghai, or UTC)`);
    }
    formatters.set(timeZone, f);
  }
  return f;
}

/** Throws `MsgxError("CONFIG")` unless `timeZone` is one `Intl` knows (an IANA name such as `Asia/Shanghai`, or `UTC`). */
export function assertTaskNoTimeZone(timeZone: string): void {
  dayFormatter(timeZone);
}

/** The day of `at` (epoch ms) in `timeZone` as `yyyyMMdd`: the day part of a task number. */
export function taskNoDay(at: number, timeZone: string): string {
  const parts = dayFormatter(timeZone).formatToParts(at);
  const part = (type: Intl.DateTimeFormatPartTypes): string => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("year").padStart(4, "0")}${part("month")}${part("day")}`;
}

/** Throws `TaskRequestError("INVALID")` unless `value` reads as a task number. */
export function assertTaskNo(value: unknown): asserts value is string {
  if (typeof value !== "string" || !TASK_NO_PATTERN.test(value)) {
    throw new TaskRequestError("INVALID", `taskNo must be T, a day yyyyMMdd and a sequence of 4 or more digits (T202607130001): ${JSON.stringify(value)}`);
  }
}
