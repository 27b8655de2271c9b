/**
 * The `traceparent` of each message the ingress appended, kept in memory until the intake
 * enqueues it: the upstream mailbox is not ours, so no column of it can carry one. Bounded: past
 * `capacity` the oldest is dropped, and a message whose trace was dropped (or lost in a restart,
 * or appended by another runner) starts its own trace at intake.
 */
export class IngressTraces {
  readonly #byMsgId = new Map<number, string>();

  constructor(readonly capacity = 10_000) {}

  remember(msgId: number, traceparent: string): void {
    this.#byMsgId.delete(msgId);
    this.#byMsgId.set(msgId, traceparent);
    for (const oldest of this.#byMsgId.keys()) {
      if (this.#byMsgId.size <= this.capacity) break;
      this.#byMsgId.delete(oldest);
    }
  }

  get(msgId: number): string | undefined {
    return this.#byMsgId.get(msgId);
  }

  /** Drops the traces of messages now enqueued (their trace is stored with the record). */
  forget(msgIds: readonly number[]): void {
    for (const id of msgIds) this.#byMsgId.delete(id);
  }

  get size(): number {
    return this.#byMsgId.size;
  }
}
