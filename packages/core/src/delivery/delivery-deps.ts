import type { Clock } from "../runtime/clock.js";
import type { DeliveryPort } from "../ports/delivery-port.js";
import type { Logger } from "../runtime/logger.js";
import type { OutboxStore } from "./outbox-store.js";

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
  /**
   * Lets the host's other work run, its pending I/O first (the runner: one `setImmediate` turn). A
   * pipelined dispatcher pauses after asking the store for the batch behind the one it sends and
   * before encoding that send: the read is then on its way to the database while the records are
   * encoded, where without it the read's statement left only after the encoding. Default: none.
   */
  readonly pause?: () => Promise<void>;
}
