import type { HealthCheck } from "../app/health-check.js";
import type { Readiness } from "../app/readiness.js";
import type { ReliableAdminApi } from "../reliable/reliable-admin.js";
import type { ReliableMessageApi } from "../reliable/reliable-api.js";
import type { TaskApi } from "../tasks/task-api.js";
import type { LineageReader } from "@msgx/core";
import type { RawMessage } from "../app/replay-admin.js";
import type { Receive } from "../app/router-ingress.js";
import type { ComparisonReport } from "../compare/comparison-report.js";
import type {
  AppendedElsewhere,
  AuditRow,
  ErrorClass,
  FlightSearchQuery,
  FlightState,
  Logger,
  PipelineStatus,
  ProcRecord,
  RecordGroup,
  RefEntry,
  RefListQuery,
  ReplayOptions,
  ReplayPreflight,
  ReplayResult,
  ReplaySelection,
  RequestFilter,
  RequestRecord,
  RunnerPresence,
  SnapshotLogRow,
  StatusHistorySample,
} from "@msgx/core";


/** What the HTTP layer may do; the app composes it. No domain logic lives in the HTTP files. */
export interface HttpContext {
  readonly logger: Logger;
  readonly token: string | undefined;
  readonly maxBodyBytes: number;
  /** The ingress (`POST /cminmsgs/send`); `traceparent` is the request's header as sent. */
  readonly receive: Receive;
  /**
   * Rows the ingress thread appended and committed on its own connections: the pipeline keeps
   * their texts for the pump, their traces for the intake, and wakes the intake.
   */
  appendedElsewhere?(appends: readonly AppendedElsewhere[]): void;
  readonly checks: readonly HealthCheck[];
  /** The runner's role; `/readyz` runs the checks only while `running`. Absent = always running. */
  readiness?(): Readiness;
  /** Called once per answered request with the matched route pattern (`unmatched` for none). */
  observeRequest?(method: string, route: string, status: number, seconds: number): void;
  metrics(): Promise<{ contentType: string; body: string }>;
  status(): Promise<PipelineStatus>;
  message(msgId: number): Promise<ProcRecord | undefined>;
  flight(flid: string): Promise<FlightState | undefined>;
  flights(query: { operationDay?: string; afterFlid?: string; limit: number }): Promise<readonly FlightState[]>;
  /** DEAD records ascending by id; `errorClass` keeps those of one class. */
  deadLetters(query: { afterMsgId?: number; limit: number; errorClass?: ErrorClass }): Promise<readonly ProcRecord[]>;
  /** DEAD records grouped by error class and reason, with counts and each group's first ids (`PipelineStore.groups`). */
  deadLetterGroups(idsPerGroup: number): Promise<readonly RecordGroup[]>;
  /** The newest `SCHD_SNAP_LOG` rows, newest first (docs/jobs.md). */
  snapshotLog(limit: number): Promise<readonly SnapshotLogRow[]>;
  /** The replay's dry run: per record eligibility, outcome and changes, and the `expect` guard (docs/operations.md). */
  replayPreview(selection: ReplaySelection): Promise<ReplayPreflight>;
  /** Throws core's `ReplayConflictError` (answered 409) when `options.expect` no longer holds; nothing is written then. */
  replay(selection: ReplaySelection, operator: string, options?: ReplayOptions): Promise<ReplayResult>;
  /** A mailbox row's raw text; undefined when the row is gone. */
  rawMessage(msgId: number): Promise<RawMessage | undefined>;
  /** Operator audit rows (`REPLAY_AUDIT`), newest first; `beforeAuditId` pages to older ones. */
  audits(query: { limit: number; beforeAuditId?: number }): Promise<readonly AuditRow[]>;
  /** Lineage of flights and reference entries (`/admin/flights/<FLID>/lineage`, docs/lineage.md). */
  readonly lineage: LineageReader;
  /** The reliable-message service's operator surface. */
  readonly reliable: ReliableAdminApi;
  /** The reliable-message service for producers and consumers (`/rm/v1`); absent = `reliable.enabled` false, no routes. */
  readonly rm?: ReliableMessageApi;
  /** The bearer token of `/rm/v1` (`reliable.token`, else `http.token`). */
  readonly rmToken?: string | undefined;
  /** The task service for owners and the executing system (`/task/v1`); absent = `tasks.enabled` false, no routes. */
  readonly tasks?: TaskApi;
  /** The bearer token of `/task/v1` (`tasks.token`, else `http.token`). */
  readonly tasksToken?: string | undefined;
  /** Upstream requests and reference data (`/admin/requests`, `/admin/reference`); absent = 404. */
  readonly requests?: RequestAdmin;
  /** The comparison with another system's `/all/flights` (`/admin/compare`); absent = 404. */
  readonly compare?: CompareAdmin;
  /** The operators' reads of the console (`/admin/runners`, `/admin/status/history`, `/admin/flights?q=`); absent = 404. */
  readonly ops?: OpsReads;
}

/** What the console's overview and flight search read (docs/operations.md "Console data"). */
export interface OpsReads {
  /** The runners of this database by their heartbeats: leaders first, stale ones marked. */
  runners(): Promise<readonly RunnerPresence[]>;
  /** The last `minutes` minutes (1–1440), oldest first, the current minute last. */
  statusHistory(minutes: number): Promise<readonly StatusHistorySample[]>;
  /** Flights by FLID or flight-number prefix (`FlightReader.search`). */
  searchFlights(query: FlightSearchQuery): Promise<readonly FlightState[]>;
  /** The flights changed last, newest first (`FlightReader.recent`). */
  recentFlights(limit: number): Promise<readonly FlightState[]>;
}

/** What the admin routes and the CLI do with upstream requests and reference data (docs/requests.md). */
export interface RequestAdmin {
  /** Registers an RQFD for `[from, to]` (ISO local, inclusive) and sends it at once. */
  schedule(from: string, to: string, operator: string): Promise<RequestRecord>;
  /** Registers an RQRD for one reference type and sends it at once. */
  reference(rtype: string, operator: string): Promise<RequestRecord>;
  list(filter: RequestFilter): Promise<readonly RequestRecord[]>;
  get(requestId: string): Promise<RequestRecord | undefined>;
  referenceTypes(): Promise<readonly { readonly rtype: string; readonly live: number }[]>;
  referenceList(query: RefListQuery): Promise<readonly RefEntry[]>;
  referenceGet(rtype: string, rkey: string): Promise<RefEntry | undefined>;
}

/** What the console's Compare view runs (docs/operations.md "Going live: shadow run and comparison"). */
export interface CompareAdmin {
  /** The base URLs of `compare.against`, the default first; empty when none is configured. */
  targets(): readonly string[];
  /**
   * Reads this runner's flights and `against`'s `/all/flights` (one of {@link targets}, never
   * following a redirect) and compares them. The other side failing is `DEPENDENCY_UNAVAILABLE`.
   */
  compare(against: string, request: { readonly operationDays: readonly string[]; readonly ignore: readonly string[] }): Promise<ComparisonReport>;
}
