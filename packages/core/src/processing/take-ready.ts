import type { ProcRecord } from "../model/proc-record.js";
import { duePrefix } from "../outbox/due-prefix.js";

/**
 * The ready prefix of the unfinished records from the head: stops at the horizon and at a FAILED
 * record that is not due (after a replay a FAILED message can sit behind new PENDING ones).
 */
export function takeReady(records: readonly ProcRecord[], now: number, horizon: number): ProcRecord[] {
  const visible = records.filter((r) => r.msgId <= horizon);
  // The head itself was judged by decideTick; only the messages behind it must be due.
  return visible.length === 0 ? [] : [visible[0]!, ...duePrefix(visible.slice(1), now)];
}
