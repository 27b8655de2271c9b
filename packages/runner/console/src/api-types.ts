/**
 * The JSON the console reads from `/admin` (the agreed admin API of issue 23, docs/operations.md).
 * The console is a client of the HTTP routes, not of `@msgx/core`: these are the wire shapes it
 * uses, times in epoch milliseconds.
 */

export type ProcStatus = "PENDING" | "FAILED" | "SUCCEEDED" | "SKIPPED" | "DEAD";
export const ERROR_CLASSES = ["MALFORMED", "PROTOCOL", "CODEC_ERROR", "UNSUPPORTED", "INFRA", "EXHAUSTED"] as const;
export type ErrorClass = (typeof ERROR_CLASSES)[number];

export interface PipelineStatus {
  readonly head: { readonly msgId: number; readonly status: ProcStatus; readonly receivedAt: number } | null;
  readonly byStatus: Readonly<Record<ProcStatus, number>>;
  readonly deadLetters: number;
  readonly backfillDebt: number;
  readonly delivery: Readonly<Record<string, { readonly pending: number; readonly oldestPendingAt: number | null; readonly dead: number }>>;
  readonly horizon: number;
}

/**
 * One minute of the status history: counts from the database, and the gauges the answering runner
 * sampled in that minute (null for a minute it took none: before it started or took over).
 */
export interface StatusSample {
  readonly at: number;
  readonly processed: number;
  readonly sent: number;
  readonly backlog: number | null;
  readonly headAgeMs: number | null;
  readonly deliveryLagMs: number | null;
  readonly dead: number | null;
  readonly backfillDebt: number | null;
}

export interface RunnerPresence {
  readonly runnerId: string;
  readonly host: string;
  readonly pid: number;
  readonly role: "leader" | "standby";
  readonly startedAt: number;
  readonly seenAt: number;
  readonly epoch?: number;
  readonly stale?: boolean;
}

/** The envelope header of a message (`yyyyMMddHHmmss` DTTM, airport local). */
export interface Meta {
  readonly sndr: string;
  readonly seqn: number;
  readonly dttm: string;
  readonly type: string;
  readonly styp: string;
}

export interface ProcRecord {
  readonly msgId: number;
  readonly status: ProcStatus;
  readonly attempts: number;
  readonly identityKey: string | null;
  readonly meta: Meta | null;
  readonly errorClass: ErrorClass | null;
  readonly reason: string | null;
  readonly history: readonly { readonly at: number; readonly errorClass: ErrorClass; readonly reason: string; readonly attempt: number }[];
  readonly receivedAt: number;
  readonly updatedAt: number;
}

export interface RawMessage {
  readonly msgId: number;
  readonly xml: string;
  readonly meta: Meta | null;
}

/** One field that differs between two versions; an absent side means the field was absent. */
export interface FieldChange {
  readonly field: string;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** What replaying a message now would change on one flight or reference key. */
export interface ReplayChange {
  readonly kind: "flight" | "reference";
  readonly key: string;
  readonly currentVersion: number | null;
  readonly nextVersion: number;
  readonly changes: readonly FieldChange[];
}

export interface ReplayPreviewItem {
  readonly msgId: number;
  readonly status: ProcStatus;
  readonly errorClass: ErrorClass | null;
  readonly reason: string | null;
  readonly eligible: boolean;
  readonly refusal?: string;
  readonly changes?: readonly ReplayChange[];
}

/** The version guard: per key, the version the preview saw (null: none yet). */
export type VersionGuard = Readonly<Record<string, number | null>>;

export interface ReplayPreviewAnswer {
  readonly dryRun: true;
  readonly preview: readonly ReplayPreviewItem[];
  readonly expect?: VersionGuard;
}

export interface ReplayResult {
  readonly replayed: readonly number[];
  readonly refused: readonly ReplayPreviewItem[];
}

export interface ReplayConflict {
  readonly error: string;
  readonly message: string;
  readonly mismatches?: readonly { readonly key: string; readonly expected: number | null; readonly current: number | null }[];
}

export interface AuditEntry {
  readonly auditId: number | string;
  readonly at: number;
  readonly operator: string;
  readonly action: string;
  readonly msgIds: readonly number[];
  readonly detail: unknown;
}

/** A flight as published (docs/events.md, `FlightPayload`). */
export interface FlightPayload {
  readonly flid: string;
  readonly ffid: string | null;
  readonly operationDay: string | null;
  readonly stateVersion: number;
  readonly deleted: boolean;
  readonly lastMsgId: number;
  readonly lastSrcDttm: string;
  readonly fields: Readonly<Record<string, string | null>>;
  readonly collections: Readonly<Record<string, unknown>>;
}

export interface LineageEvent {
  readonly eventId: number | string;
  readonly target: string;
  readonly eventType: string;
  readonly status: string;
  readonly sentAt: number | null;
  readonly partition: number | null;
  readonly offset: string | number | null;
}

export interface LineageVersion {
  readonly version: number;
  readonly at: number;
  readonly source: { readonly msgId: number; readonly type: string; readonly subtype: string; readonly dttm: string; readonly status: string; readonly errorClass: string | null } | null;
  readonly events: readonly LineageEvent[];
  readonly changes: readonly FieldChange[];
}

/** A flight's or a reference key's versions, newest first; `next` is the `before` of the next page. */
export interface Lineage {
  readonly versions: readonly LineageVersion[];
  readonly next: number | null;
}

export interface RefEntry {
  readonly rtype: string;
  readonly rkey: string;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly deleted: boolean;
  readonly version: number;
  readonly msgId: number;
  readonly updatedAt: number;
}

export interface RequestRecord {
  readonly requestId: string;
  readonly requestType: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly status: string;
  readonly requestedBy: string;
  readonly registeredAt: number;
  readonly deadlineAt: number;
  readonly sendAttempts: number;
  readonly closeReason?: string | null;
}

export interface ReliableMessage {
  readonly messageId: string;
  readonly consumerQueue: string;
  readonly status: string;
  readonly dead: boolean;
  readonly sendCount: number;
  readonly lastSentAt: number | null;
  readonly createdAt: number;
  readonly remark: string | null;
}

export interface ReliableQueue {
  readonly queue: string;
  readonly waiting: number;
  readonly dead: number;
}
