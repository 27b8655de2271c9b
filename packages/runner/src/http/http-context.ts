import type { ReliableAdminApi } from "../reliable/reliable-admin.js";
import type { FlightState, Logger, PipelineStatus, ProcRecord, ReplayPreview, ReplayResult, ReplaySelection } from "@msgx/core";

/** A dependency check for `/readyz`. */
export interface HealthCheck {
  readonly name: string;
  check(): Promise<void>;
}

/** What the HTTP layer may do; the app composes it. No domain logic lives in the HTTP files. */
export interface HttpContext {
  readonly logger: Logger;
  readonly token: string | undefined;
  readonly maxBodyBytes: number;
  /** Writes the raw XML to the mailbox and wakes intake; returns the mailbox id. */
  receive(rawXml: string): Promise<number>;
  readonly checks: readonly HealthCheck[];
  metrics(): Promise<{ contentType: string; body: string }>;
  status(): Promise<PipelineStatus>;
  message(msgId: number): Promise<ProcRecord | undefined>;
  flight(flid: string): Promise<FlightState | undefined>;
  flights(query: { operationDay?: string; afterFlid?: string; limit: number }): Promise<readonly FlightState[]>;
  deadLetters(query: { afterMsgId?: number; limit: number }): Promise<readonly ProcRecord[]>;
  replayPreview(selection: ReplaySelection): Promise<readonly ReplayPreview[]>;
  replay(selection: ReplaySelection, operator: string): Promise<ReplayResult>;
  /** The reliable-message service's operator surface. */
  readonly reliable: ReliableAdminApi;
}
