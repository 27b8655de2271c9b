/**
 * The JSON the console reads from `/admin` (the agreed admin API of issue 23, docs/operations.md).
 * The console is a client of the HTTP routes, not of `@msgx/core` at run time: the shapes core
 * already declares are imported as types only (erased from the bundle, so one definition each);
 * the rest are the routes' own answers. Times in epoch milliseconds.
 */

import type { ErrorClass, FieldChange, Meta, ProcStatus } from "@msgx/core";

export type {
  ErrorClass,
  FieldChange,
  FlightPayload,
  LineageEvent,
  LineagePage,
  LineageVersion,
  Meta,
  PipelineStatus,
  ProcRecord,
  ProcStatus,
  RefEntry,
  RequestRecord,
  RunnerPresence,
} from "@msgx/core";

export const ERROR_CLASSES = ["MALFORMED", "PROTOCOL", "CODEC_ERROR", "UNSUPPORTED", "INFRA", "EXHAUSTED"] as const satisfies readonly ErrorClass[];

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

export interface RawMessage {
  readonly msgId: number;
  readonly xml: string;
  readonly meta: Meta | null;
}

/** What replaying a message now would change on one flight or reference key. */
export interface ReplayChange {
  readonly kind: "flight" | "reference";
  readonly key: string;
  readonly currentVersion: number | null;
  readonly nextVersion: number;
  readonly changes: readonly FieldChange[];
}

/** How a message ends (or would end): its status, and the class and reason of a failure or a skip. */
export interface MessageEnd {
  readonly status: ProcStatus;
  readonly errorClass: ErrorClass | null;
  readonly reason: string | null;
}

export interface ReplayPreviewItem {
  readonly msgId: number;
  readonly status: ProcStatus;
  readonly errorClass: ErrorClass | null;
  readonly reason: string | null;
  readonly eligible: boolean;
  readonly refusal?: string;
  /** Eligible: how the message would end if processed now (the pump's own decision, run without writing). */
  readonly outcome?: MessageEnd;
  readonly changes?: readonly ReplayChange[];
}

/** DEAD messages of one error class and reason (`GET /admin/dead-letters/groups`). */
export interface DeadLetterGroup {
  readonly errorClass: ErrorClass | null;
  readonly reason: string | null;
  readonly count: number;
  /** The group's smallest ids (all of them unless the group is very large). */
  readonly msgIds: readonly number[];
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
  /** WAITING_CONFIRM + SENDING (older runners give only this). */
  readonly waiting: number;
  readonly dead: number;
  /** Messages per phase (`WAITING_CONFIRM`, `SENDING`, `REVIEW`, `DEAD`). */
  readonly phases?: Readonly<Record<string, number>>;
}

/** The HTTP call a change was made in (`ApiCaller`). */
export interface HistoryCaller {
  readonly route: string;
  readonly requestId: string;
  readonly remoteAddress: string;
  readonly userAgent: string | null;
}

/** One change of a reliable message or a task (`/admin/reliable-messages/:id/lineage`, `/admin/tasks/:taskId/lineage`). */
export interface HistoryEntry {
  readonly version: number;
  readonly at: number;
  readonly from: string | null;
  readonly to: string;
  /** The reliable-message machine's event; absent for a task. */
  readonly event?: string;
  readonly cause: { readonly kind: string; readonly caller?: HistoryCaller } & Readonly<Record<string, unknown>>;
  /** A task's caller (a message's is in its `api` cause). */
  readonly caller?: HistoryCaller | null;
  readonly detail: string | null;
  /** How many changes the entry stands for (a run of outage rechecks or watchdog alerts); `at` is the last one's. */
  readonly repeats: number;
  /** When the first of them was written. */
  readonly firstAt: number;
}

/** A lineage answer: the phase or status now and a page of the changes, newest first; `next` the `before` of the older page. */
export interface HistoryLineage {
  readonly phase?: string;
  readonly status?: string;
  readonly entries: readonly HistoryEntry[];
  readonly next: number | null;
}
