import type { FlightState } from "../model/flight-state.js";
import type { IdentityOptions } from "../model/identity.js";
import type { RetryPolicy, UnsupportedPolicy } from "../runtime/retry-policy.js";
import type { OpenRequest } from "../requests/open-request.js";
import type { RefState } from "../requests/reference-entry.js";
import type { RequestRecord } from "../requests/request-record.js";
import type { ProcessorTable } from "./processor.js";
import type { IdentityOwner } from "./run-decision.js";

/** The state a run is decided against, loaded in one query per kind. */
export interface LoadedState {
  readonly identityOwners: ReadonlyMap<string, IdentityOwner>;
  readonly flights: ReadonlyMap<string, FlightState>;
  /**
   * The open upstream requests (`PipelineTx.openRequests`): replies are matched against them, and
   * a matched one is closed (DONE) in the decision.
   */
  readonly requests?: readonly RequestRecord[];
  /** Views to match against when no `requests` are given (processor tests); nothing is closed. */
  readonly openRequests?: readonly OpenRequest[];
  /** The stored reference rows of `PreparedRun.referenceTypes`, tombstones included. */
  readonly references?: readonly RefState[];
}

export interface RunContext {
  readonly now: number;
  readonly policy: RetryPolicy;
  readonly identity: IdentityOptions;
  readonly processors: ProcessorTable;
  /** The budget (or `skip` mode) of UNSUPPORTED messages. Default {@link DEFAULT_UNSUPPORTED_POLICY}. */
  readonly unsupported?: UnsupportedPolicy;
  /**
   * The broker's record limit in bytes: a message any of whose events would be a larger record
   * (`encodedRecordBytes`) ends DEAD(PROTOCOL) with nothing written. Undefined or 0: unchecked.
   */
  readonly maxRecordBytes?: number;
}
