import type { BreakerPolicy } from "../runtime/outage-breaker.js";
import type { StepGuard } from "../runtime/guarded-step.js";
import type { DeliveryDeps } from "./delivery-deps.js";
import { pausesDelivery } from "./send-prefix.js";

/** What a delivery step answers while its breaker is open. */
export interface DeliveryOutage {
  readonly did: "outage";
  readonly error: string;
  readonly next: number;
}

/**
 * The breaker guard of one delivery target (msg, ref, a reliable queue, schd): a broker or store
 * outage pauses the target alone; a step cut short by shutdown is no outage and propagates.
 * `onError` sees every error first (a dispatcher drops its read-ahead).
 */
export function deliveryGuard(deps: DeliveryDeps, target: string, policy: BreakerPolicy, onError?: () => void): StepGuard<DeliveryOutage> {
  return {
    clock: deps.clock,
    logger: deps.logger,
    policy,
    log: { paused: "delivery paused: dependency unavailable", recovered: "delivery recovered", fields: { target } },
    pauses: (e, signal) => !signal?.aborted && pausesDelivery(e),
    outage: (error, until) => ({ did: "outage", error, next: until }),
    ...(onError ? { caught: () => void onError() } : {}),
  };
}
