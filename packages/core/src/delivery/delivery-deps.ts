import type { Clock } from "../ports/clock.js";
import type { DeliveryPort } from "../ports/delivery-port.js";
import type { Logger } from "../ports/logger.js";
import type { OutboxStore } from "../ports/outbox-store.js";

/**
 * Where a failpoint can fire: right after the broker acknowledged a send and before the outbox
 * marks it sent (the window in which a crash produces a resend).
 */
export type DeliveryFailpoint = "dispatch.after-send" | "schd.after-send";

/** What the delivery drivers run over. */
export interface DeliveryDeps {
  readonly outbox: OutboxStore;
  readonly delivery: DeliveryPort;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Named points where tests (and the fault battery) may crash the process. */
  readonly failpoint?: (name: DeliveryFailpoint) => void;
}
