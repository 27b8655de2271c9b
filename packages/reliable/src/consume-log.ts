/** One consumed message, as the consumer's own database records it. */
export interface ConsumeLogEntry {
  readonly messageId: string;
  readonly consumerQueue: string;
  /** The send number of the record that was consumed (1 unless a resend got there first). */
  readonly sendCount: number;
  readonly consumedAt: number;
}

/**
 * The consumer side's dedupe table, in the consumer's own database (seed 002 has none: its
 * accounting listener booked a redelivered message twice). `Tx` is the consumer's transaction
 * handle: the handler's business writes and the claim share it, so both commit or neither does.
 *
 * Every implementation guarantees:
 * - `transaction` commits what `fn` wrote through `tx` only when `fn` resolves, and rolls it all
 *   back when `fn` throws (the error is rethrown).
 * - `claim` records `entry.messageId` in `tx` and returns true, or returns false when that id is
 *   already recorded by a committed transaction. Two transactions claiming the same id
 *   concurrently: one gets true; the other waits for it and then gets false (or, when the first
 *   rolls back, true). A message is therefore handled in effect once.
 * - `purge(before, limit)` deletes committed entries with `consumedAt < before`, oldest first
 *   (`consumedAt`, then `messageId`), at most `limit` of them, and returns how many it deleted;
 *   the host calls it again while it returns `limit`. A purged id can be claimed again, so the
 *   retention (`now - before`) must be at least the message service's retention of finished
 *   messages: ids are unique only within that window, and inside it every redelivery and resend
 *   must still find its claim.
 * - Driver errors leave as `MsgxError`.
 */
export interface ConsumeLog<Tx> {
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  claim(tx: Tx, entry: ConsumeLogEntry): Promise<boolean>;
  purge(before: number, limit: number): Promise<number>;
}
