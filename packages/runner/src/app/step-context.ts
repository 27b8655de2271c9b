import type { Clock, Logger } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import type { AppParts } from "./app-parts.js";

/**
 * What a factory of router steps may use (the maintenance jobs, the request coordinator, the
 * reliable relay). A step wakes others by naming them in its outcome (`WAKE_EDGES`), never by a callback.
 */
export interface StepContext {
  readonly parts: AppParts;
  readonly config: MsgxConfig;
  readonly logger: Logger;
  readonly clock: Clock;
}
