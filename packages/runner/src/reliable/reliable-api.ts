import { checkReliableMessageDraft, RELIABLE_MESSAGE_TOPIC_PREFIX, ReliableMessagePhase, reliableMessagePhase, type BulkResendResult, type ReliableMessage, type ReliableMessageDraft, type ReliableMessageOutcome, type ReliableMessageService } from "@msgx/reliable";
import type { QueueTopicsPort } from "../app/app-parts.js";
import { HttpError } from "../http/http-error.js";
import type { ReliableMetrics } from "./reliable-metrics.js";

/** What a producer sends to prepare a message (`POST /rm/v1/messages`). */
export interface ReliableMessageInput {
  readonly messageId: string;
  readonly queue: string;
  /** Text as is; any other JSON value is stored as its JSON text. */
  readonly body: unknown;
  readonly dataType?: string | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
  readonly remark?: string | undefined;
  readonly field1?: string | undefined;
  readonly field2?: string | undefined;
  readonly field3?: string | undefined;
  readonly checkDelayMs?: number | undefined;
}

/** A stored message as the API shows it: every stored field, its queue under `queue`, and its phase. */
export type ReliableMessageView = ReliableMessage & { readonly queue: string; readonly phase: ReliableMessagePhase };

/** What a command answers: whether it changed anything (false for a repeat), and the message after it. */
export interface ReliableCommandAnswer {
  readonly applied: boolean;
  readonly message: ReliableMessageView | null;
}

/**
 * The producer and consumer surface of the hosted reliable-message service (`/rm/v1`,
 * docs/reliable-message.md "Hosted by the msgx runner"). Every method is idempotent; refusals throw
 * `ReliableMessageError` (4xx by code) or an `HttpError` 422 `UNKNOWN_QUEUE`.
 */
export interface ReliableMessageApi {
  /** Prepare (WAITING_CONFIRM), or save and send at once with `confirm`. `created` is false for a repeated prepare. */
  prepare(input: ReliableMessageInput, confirm: boolean): Promise<{ readonly created: boolean; readonly message: ReliableMessageView }>;
  confirm(messageId: string): Promise<ReliableCommandAnswer>;
  cancel(messageId: string): Promise<ReliableCommandAnswer>;
  get(messageId: string): Promise<ReliableMessageView | undefined>;
  /** The consumer's end-to-end acknowledgement. */
  ack(messageId: string): Promise<ReliableCommandAnswer>;
  /** The consumer's handler failed past its own retries: redelivered later, DEAD at the reject budget. */
  reject(messageId: string, reason: string): Promise<ReliableCommandAnswer>;
  /** Resends every DEAD message of `queue` (the dead-letter replay). */
  replayDead(queue: string): Promise<BulkResendResult>;
}

export const messageView = (m: ReliableMessage): ReliableMessageView => ({ ...m, queue: m.consumerQueue, phase: reliableMessagePhase(m) });

export interface ReliableApiDeps {
  readonly service: ReliableMessageService;
  readonly metrics: ReliableMetrics;
  /** Looked up before a prepare when topics are not created on first use. */
  readonly topics?: QueueTopicsPort | undefined;
  /** `reliable.createTopics`: false = a prepare for a queue without its topic is refused (422). */
  readonly createTopics: boolean;
  /** Called after a command wrote a send (wakes the relay). */
  readonly onSend?: () => void;
}

/** The API over the service in this process. */
export function directReliableApi(deps: ReliableApiDeps): ReliableMessageApi {
  const { service, metrics } = deps;
  const answer = (outcome: ReliableMessageOutcome): ReliableCommandAnswer => {
    if (outcome.eventId !== null) deps.onSend?.();
    return { applied: outcome.applied, message: outcome.message ? messageView(outcome.message) : null };
  };
  return {
    async prepare(input, confirm) {
      const draft = checkReliableMessageDraft(toDraft(input));
      if (!deps.createTopics && deps.topics) {
        const topic = `${RELIABLE_MESSAGE_TOPIC_PREFIX}${draft.consumerQueue}`;
        if (!(await deps.topics.exists(topic))) {
          throw new HttpError(422, `queue ${draft.consumerQueue}: its topic ${topic} does not exist and reliable.createTopics is false`, "UNKNOWN_QUEUE");
        }
      }
      const outcome = await service.execute(draft.messageId, confirm ? { type: "save-and-send", draft } : { type: "save-waiting", draft });
      if (outcome.eventId !== null) deps.onSend?.();
      const message = outcome.message ?? (await service.get(draft.messageId));
      if (message === undefined) throw new Error(`message ${draft.messageId} is not stored after its prepare`);
      return { created: outcome.applied, message: messageView(message) };
    },
    confirm: async (id) => answer(await service.confirmAndSend(id)),
    cancel: async (id) => answer(await service.cancel(id)),
    get: async (id) => {
      const m = await service.get(id);
      return m ? messageView(m) : undefined;
    },
    ack: async (id) => answer(await service.acknowledge(id)),
    reject: async (id, reason) => {
      const outcome = await service.reject(id, reason);
      if (outcome.applied) {
        metrics.rejected();
        if (outcome.message && reliableMessagePhase(outcome.message) === ReliableMessagePhase.DEAD) metrics.dead();
      }
      return answer(outcome);
    },
    replayDead: async (queue) => {
      const result = await service.resendAllDeadByQueue(queue);
      if (result.resent > 0) deps.onSend?.();
      return result;
    },
  };
}

/** The draft of an input: a body that is not text is stored as its JSON text. */
function toDraft(input: ReliableMessageInput): ReliableMessageDraft {
  const body = typeof input.body === "string" ? input.body : JSON.stringify(input.body);
  return {
    messageId: input.messageId,
    consumerQueue: input.queue,
    body,
    dataType: input.dataType ?? null,
    remark: input.remark ?? null,
    field1: input.field1 ?? null,
    field2: input.field2 ?? null,
    field3: input.field3 ?? null,
    headers: input.headers ?? null,
    checkDelayMs: input.checkDelayMs ?? null,
  };
}
