import { adminHttp, lineageQueryString } from "../commands/admin-http.js";
import { currentCaller } from "../http/request-caller.js";
import { reliableMessagePhase, ReliableMessageService, type BulkResendResult, type ReliableMessageCause, type ReliableMessageHistoryPage, type ReliableMessagePhase, type ReliableMessage, type ReliableMessageFilter, type ReliableMessageOutcome, type ReliableMessagePage, type ReliableMessageOptionsInput, type ReliableMessageStore, type ReliableQueueCounts } from "@msgx/reliable";
import { type Clock, type LineageQuery, type Logger, type PipelineStore } from "@msgx/core";
import { messageWithSubscriptions, type ReliableMessageView } from "./reliable-api.js";

const subscriptionParam = (subscription: string | undefined): string => (subscription === undefined ? "" : `?subscription=${encodeURIComponent(subscription)}`);

/** A message as an operator sees it (with its subscriptions' deliveries when its queue has them): on a queue ordered by key, `heldBehind` names the unfinished older message of its key it waits for (else null). */
export type ReliableAdminView = ReliableMessageView & { readonly heldBehind: string | null };

/** The operator surface of the reliable-message service (SPEC §4), direct or over HTTP. */
export interface ReliableAdminApi {
  list(filter: ReliableMessageFilter, pageNum: number, pageSize: number): Promise<ReliableMessagePage>;
  /** The message, with each subscription's delivery when its queue has subscriptions. */
  get(messageId: string): Promise<ReliableAdminView | undefined>;
  /** Resend the message, or only its delivery to `subscription` (required for a message of a queue with subscriptions). */
  resend(messageId: string, subscription?: string): Promise<ReliableMessageOutcome>;
  /** Mark the message dead, or only its delivery to `subscription` (required likewise). */
  markDead(messageId: string, subscription?: string): Promise<ReliableMessageOutcome>;
  resendDead(queue: string, pageSize?: number): Promise<BulkResendResult>;
  /** The phase counts of every queue holding a message, by queue name. */
  queues(): Promise<readonly ReliableQueueCounts[]>;
  /**
   * Seed `deleteMessageByMessageId` for operators: deletes the message whatever its phase (it is
   * never delivered or resent again) and writes an operator audit row (`/admin/audit`,
   * {@link RELIABLE_DELETE_AUDIT_ACTION}) holding what was deleted. `deleted` is null when there was no such message.
   */
  delete(messageId: string, operator: string): Promise<{ readonly deleted: ReliableMessage | null }>;
  /**
   * The message's lineage: one page of its state changes with their causes, newest first, and
   * its phase now; undefined when no such message is stored (never was, deleted, or purged with
   * its history).
   */
  lineage(messageId: string, query: LineageQuery): Promise<ReliableMessageLineage | undefined>;
}

/** `GET /admin/reliable-messages/:id/lineage`: the message's phase now and a page of its history, newest first. */
export interface ReliableMessageLineage extends ReliableMessageHistoryPage {
  readonly messageId: string;
  readonly phase: ReliableMessagePhase;
}

/** The cause of a change made while serving an HTTP call: that call (`causeOf` of the runner's services). */
export const requestCause = (): ReliableMessageCause | undefined => {
  const caller = currentCaller();
  return caller === undefined ? undefined : { kind: "api", caller };
};

/** The audit row's `action` of an operator's delete of a reliable message. */
export const RELIABLE_DELETE_AUDIT_ACTION = "reliable-message-delete";

/** Where the operator's deletes are audited: the pipeline's audit trail (`REPLAY_AUDIT`, `/admin/audit`). */
export interface ReliableAuditTrail {
  readonly store: Pick<PipelineStore, "transaction">;
  readonly clock: Clock;
}

/** The service over msgx's own database: every send is an outbox row in the same transaction. */
export function reliableService(store: ReliableMessageStore, clock: Clock, logger?: Logger, options?: ReliableMessageOptionsInput): ReliableMessageService {
  return new ReliableMessageService({ store, clock, causeOf: requestCause, ...(logger ? { logger } : {}), ...(options ? { options } : {}) });
}

export function directReliableAdmin(service: ReliableMessageService, audit: ReliableAuditTrail): ReliableAdminApi {
  return {
    delete: async (id, operator) => {
      const before = await service.get(id);
      if (before === undefined) return { deleted: null };
      const outcome = await service.deleteByMessageId(id);
      if (!outcome.applied) return { deleted: null };
      const { messageId, consumerQueue, status, dead, sendCount, createdAt, confirmedAt, field1 } = before;
      const detail = JSON.stringify({ messageId, queue: consumerQueue, phase: reliableMessagePhase(before), status, dead, sendCount, createdAt, confirmedAt, field1 });
      await audit.store.transaction((tx) => tx.appendAudit({ at: audit.clock.now(), operator, action: RELIABLE_DELETE_AUDIT_ACTION, msgIds: [], detail }));
      return { deleted: before };
    },
    lineage: async (id, query) => {
      const [message, page] = await Promise.all([service.get(id), service.historyPage(id, query)]);
      return message === undefined ? undefined : { messageId: id, phase: reliableMessagePhase(message), ...page };
    },
    list: (filter, pageNum, pageSize) => service.listPage(filter, pageNum, pageSize),
    get: async (id) => {
      const m = await service.get(id);
      return m ? { ...messageWithSubscriptions(m, await service.subscriptions(id)), heldBehind: (await service.heldBehind(id))?.messageId ?? null } : undefined;
    },
    resend: (id, subscription) => service.resendByMessageId(id, subscription),
    markDead: (id, subscription) => service.markDead(id, undefined, subscription),
    resendDead: (queue, pageSize) => service.resendAllDeadByQueue(queue, pageSize),
    queues: () => service.countByQueue(),
  };
}

export function httpReliableAdmin(baseUrl: string, token: string | undefined): ReliableAdminApi {
  const call = adminHttp(baseUrl, token);
  const base = "/admin/reliable-messages";
  return {
    list: async (f, pageNum, pageSize) => {
      const q = new URLSearchParams({ page: String(pageNum), size: String(pageSize) });
      if (f.consumerQueue) q.set("queue", f.consumerQueue);
      if (f.status) q.set("status", f.status);
      if (f.dead !== undefined) q.set("dead", String(f.dead));
      return (await call<ReliableMessagePage>("GET", `${base}?${q}`))!;
    },
    get: (id) => call("GET", `${base}/${encodeURIComponent(id)}`),
    lineage: (id, query) => call("GET", `${base}/${encodeURIComponent(id)}/lineage${lineageQueryString(query)}`),
    delete: async (id, operator) => (await call<{ deleted: ReliableMessage | null }>("DELETE", `${base}/${encodeURIComponent(id)}?operator=${encodeURIComponent(operator)}`))!,
    resend: async (id, subscription) => (await call<ReliableMessageOutcome>("POST", `${base}/${encodeURIComponent(id)}/resend${subscriptionParam(subscription)}`))!,
    markDead: async (id, subscription) => (await call<ReliableMessageOutcome>("POST", `${base}/${encodeURIComponent(id)}/mark-dead${subscriptionParam(subscription)}`))!,
    resendDead: async (queue, pageSize) =>
      (await call<BulkResendResult>("POST", `${base}/resend-dead?queue=${encodeURIComponent(queue)}${pageSize ? `&size=${pageSize}` : ""}`))!,
    queues: async () => (await call<{ queues: (ReliableQueueCounts & { waiting: number; dead: number })[] }>("GET", `${base}/queues`))!.queues.map(({ queue, phases }) => ({ queue, phases })),
  };
}
