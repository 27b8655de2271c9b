/** A dependency check for `/readyz`: each part the runner opened contributes one (state, mailbox, Kafka). */
export interface HealthCheck {
  readonly name: string;
  /** Resolves when the dependency answers; rejects with why it does not. */
  check(): Promise<void>;
}
