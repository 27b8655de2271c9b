import type { Clock, Logger } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import type { AppParts } from "./app-parts.js";

/** A background loop the app starts beside the pipeline: `step` returns ms until the next call. */
export interface LoopSpec {
  readonly name: string;
  step(signal: AbortSignal): Promise<number>;
}

/** What a loop factory may use. */
export interface LoopContext {
  readonly parts: AppParts;
  readonly config: MsgxConfig;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Wakes the pump at once (e.g. after replay-like changes). */
  wakePump(): void;
  /** Wakes the delivery loops at once (e.g. after writing outbox events). */
  wakeDelivery(): void;
}
