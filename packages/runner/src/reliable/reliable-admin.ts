import { adminHttp } from "../commands/admin-http.js";
import { ReliableMessageService, type BulkResendResult, type ReliableMessage, type ReliableMessageFilter, type ReliableMessageOutcome, type ReliableMessagePage, type ReliableMessageOptionsInput, type ReliableMessageStore, type ReliableQueueCounts } from "@msgx/reliable";
import { type Clock, type Logger } from "@msgx/core";

/** The operator surface of the reliable-message service (SPEC §4), direct or over HTTP. */
export interface ReliableAdminApi {
  list(filter: ReliableMessageFilter, pageNum: number, pageSize: number): Promise<ReliableMessagePage>;
  get(messageId: string): Promise<ReliableMessage | undefined>;
  resend(messageId: string): Promise<ReliableMessageOutcome>;
  markDead(messageId: string): Promise<ReliableMessageOutcome>;
  resendDead(queue: string, pageSize?: number): Promise<BulkResendResult>;
  /** The phase counts of every queue holding a message, by queue name. */
  queues(): Promise<readonly ReliableQueueCounts[]>;
}

/** The service over msgx's own database: every send is an outbox row in the same transaction. */
export function reliableService(store: ReliableMessageStore, clock: Clock, logger?: Logger, options?: ReliableMessageOptionsInput): ReliableMessageService {
  return new ReliableMessageService({ store, clock, ...(logger ? { logger } : {}), ...(options ? { options } : {}) });
}

export function directReliableAdmin(service: ReliableMessageService): ReliableAdminApi {
  return {
    list: (filter, pageNum, pageSize) => service.listPage(filter, pageNum, pageSize),
    get: (id) => service.get(id),
    resend: (id) => service.resendByMessageId(id),
    markDead: (id) => service.markDead(id),
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
    resend: async (id) => (await call<ReliableMessageOutcome>("POST", `${base}/${encodeURIComponent(id)}/resend`))!,
    markDead: async (id) => (await call<ReliableMessageOutcome>("POST", `${base}/${encodeURIComponent(id)}/mark-dead`))!,
    resendDead: async (queue, pageSize) =>
      (await call<BulkResendResult>("POST", `${base}/resend-dead?queue=${encodeURIComponent(queue)}${pageSize ? `&size=${pageSize}` : ""}`))!,
    queues: async () => (await call<{ queues: (ReliableQueueCounts & { waiting: number; dead: number })[] }>("GET", `${base}/queues`))!.queues.map(({ queue, phases }) => ({ queue, phases })),
  };
}
