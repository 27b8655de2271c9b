import { checkReliableMessageDraft, isReliableMessageError, RELIABLE_MESSAGE_DLQ_TOPIC_PREFIX, RELIABLE_MESSAGE_TOPIC_PREFIX, RELIABLE_SUBSCRIPTION_TOPIC_PREFIX, reliableMessageOptions, type ReliableMessageOptionsInput } from "@msgx/reliable";
import { z } from "zod";

const positive = (d: number) => z.coerce.number().int().min(1).default(d);
const bool = (d: boolean) =>
  z
    .union([z.boolean(), z.enum(["true", "false", "1", "0"])])
    .default(d)
    .transform((v) => v === true || v === "true" || v === "1");
/** A service option: unset = the service's own default (`DEFAULT_RELIABLE_MESSAGE_OPTIONS`), so a default lives in one place. */
const optionalMs = (min: number) => z.coerce.number().int().min(min).optional();

/** An http(s) URL; the message never echoes the value (it may carry credentials). */
export const httpUrl = (name: string) =>
  z.string().superRefine((v, ctx) => {
    let ok = false;
    try {
      const u = new URL(v);
      ok = (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
    } catch {
      ok = false;
    }
    if (!ok) ctx.addIssue({ code: "custom", message: `${name} must be an http(s) URL` });
  });

/**
 * A list of positive millisecond waits: a JSON array in the file, or comma-separated text in a
 * variable (`MSGX_RELIABLE_RESEND_WAITS_MS="60000,120000"`). Unset = the service's default.
 */
const waitList = z
  .union([z.array(z.unknown()), z.string().transform((text) => text.split(",").map((t) => t.trim()))])
  .pipe(z.array(z.coerce.number().int().min(1, "each wait must be a positive integer (ms)")).min(1, "give at least one wait"))
  .optional();

/** Whether `queue` is a queue name the service takes (the rule of `checkReliableMessageDraft`, not a copy of it). */
const isQueueName = (queue: string): boolean => {
  try {
    checkReliableMessageDraft({ messageId: "config", body: "", consumerQueue: queue });
    return true;
  } catch (e) {
    if (isReliableMessageError(e)) return false;
    throw e;
  }
};

const queueSettings = z
  .object({
    /** The producer's check-back endpoint for this queue (`POST`, docs/reliable-message.md). */
    checkerUrl: httpUrl("checkerUrl").optional(),
    /** Sent as `Authorization: Bearer <checkerToken>` to the checker. */
    checkerToken: z.string().min(1).optional(),
    /** The queue's default check delay (a message's own `checkDelayMs` wins). */
    checkAfterMs: z.coerce.number().int().min(0).optional(),
    /**
     * Per-key order (pg-boss `key_strict_fifo`): every message needs a `key`, and a key's next
     * message is first sent only once the older ones of the key are finished (docs/reliable-message.md).
     */
    orderByKey: z.boolean().optional(),
    /**
     * Named subscriptions (consumer groups) of the queue: each gets every confirmed message on its
     * own topic and acknowledges, rejects and is resent on its own; unset: one acknowledgement.
     */
    subscriptions: z.array(z.string()).optional(),
  })
  .strict();

/**
 * Queues by name: a JSON object in the file, or the same JSON as the text of `MSGX_RELIABLE_QUEUES`
 * (`{"orders":{"checkerUrl":"http://orders:8080/rm/check"}}`).
 */
const queues = z
  .unknown()
  .transform((value, ctx) => {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      ctx.addIssue({ code: "custom", message: 'must be a JSON object of queues: {"<queue>": {"checkerUrl": "…"}}' });
      return z.NEVER;
    }
  })
  .pipe(
    z.record(z.string(), queueSettings).superRefine((qs, ctx) => {
      for (const name of Object.keys(qs)) {
        if (!isQueueName(name)) ctx.addIssue({ code: "custom", path: [name], message: "not a queue name ([A-Za-z0-9._-], 1–100 characters)" });
      }
    }),
  )
  .default({});

/** A Kafka topic-name prefix: the characters of a topic name (a queue name follows it). */
const topicPrefix = (name: string, d: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/, `${name} must be 1–100 characters of [A-Za-z0-9._-] (it starts a Kafka topic name)`)
    .default(d);

/**
 * `reliable.*`: the reliable-message service the runner hosts (docs/reliable-message.md "Hosted by
 * the msgx runner"): its HTTP API `/rm/v1`, the hosted check-back, recovery, queue topics and
 * retention.
 */
export const reliableSection = z
  .object({
    /** Serve `/rm/v1` and run the check-back, recovery and retention of reliable messages. */
    enabled: bool(true),
    /** Bearer token of `/rm/v1` (producers and consumers); unset = `http.token`. */
    token: z.string().min(16, "reliable.token must be at least 16 characters").optional(),
    /** Create `rmq.<queue>` and `rmq-dlq.<queue>` on first use; false: a prepare for a queue without its topic is 422. */
    createTopics: bool(true),
    /** A queue's topic is this prefix and the queue name (`rmq.orders`). */
    topicPrefix: topicPrefix("reliable.topicPrefix", RELIABLE_MESSAGE_TOPIC_PREFIX),
    /** A queue's dead-letter topic is this prefix and the queue name (`rmq-dlq.orders`). */
    dlqTopicPrefix: topicPrefix("reliable.dlqTopicPrefix", RELIABLE_MESSAGE_DLQ_TOPIC_PREFIX),
    /** A subscription's topic is this prefix, the queue name, a dot and the subscription (`rmq-sub.orders.ledger`). */
    subscriptionTopicPrefix: topicPrefix("reliable.subscriptionTopicPrefix", RELIABLE_SUBSCRIPTION_TOPIC_PREFIX),
    /** Period of the check-back and recovery steps. */
    jobIntervalMs: positive(5_000),
    checkAfterMs: optionalMs(0),
    checkIntervalMs: optionalMs(1),
    maxCheckIntervalMs: optionalMs(1),
    maxChecks: optionalMs(1),
    /** After `maxChecks` inconclusive check-backs: keep asking (alerting each time), or move the message to REVIEW. */
    afterMaxChecks: z.enum(["keep-asking", "dead"]).optional(),
    /** A checker that has not answered by then is an inconclusive check. */
    checkerTimeoutMs: positive(5_000),
    resendWaitsMs: waitList,
    maxSends: optionalMs(1),
    maxRejects: optionalMs(1),
    rejectWaitsMs: waitList,
    outageRecheckMs: optionalMs(1),
    retention: z
      .object({
        /** ACKNOWLEDGED and CANCELLED messages are purged this long after their last change (ids reusable after). */
        finishedMs: positive(7 * 24 * 3_600_000),
      })
      .strict()
      .prefault({}),
    queues,
    /** The checker of every queue without its own `checkerUrl`. */
    defaultCheckerUrl: httpUrl("reliable.defaultCheckerUrl").optional(),
    /** Its bearer token. */
    defaultCheckerToken: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    // One topic must never be both a queue's and another queue's dead-letter topic.
    if (r.topicPrefix.startsWith(r.dlqTopicPrefix) || r.dlqTopicPrefix.startsWith(r.topicPrefix)) {
      ctx.addIssue({ code: "custom", path: ["dlqTopicPrefix"], message: `reliable.topicPrefix (${r.topicPrefix}) and reliable.dlqTopicPrefix (${r.dlqTopicPrefix}) must not start with one another` });
    }
    // Nor a subscription's topic a queue's or a dead-letter topic (queue names may hold dots).
    for (const [key, other] of [["topicPrefix", r.topicPrefix], ["dlqTopicPrefix", r.dlqTopicPrefix]] as const) {
      if (r.subscriptionTopicPrefix.startsWith(other) || other.startsWith(r.subscriptionTopicPrefix)) {
        ctx.addIssue({ code: "custom", path: ["subscriptionTopicPrefix"], message: `reliable.subscriptionTopicPrefix (${r.subscriptionTopicPrefix}) and reliable.${key} (${other}) must not start with one another` });
      }
    }
    // The service checks its options together (RangeError); refuse at load what it would refuse at start.
    try {
      reliableMessageOptions(serviceOptions(r));
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
      ctx.addIssue({ code: "custom", message: e.message });
    }
  })
  .prefault({});

/** What `serviceOptions` reads: the section's output (it runs inside the section's own check too). */
interface ReliableSettings {
  readonly queues: Readonly<Record<string, { readonly checkAfterMs?: number | undefined; readonly orderByKey?: boolean | undefined; readonly subscriptions?: readonly string[] | undefined }>>;
  readonly checkAfterMs?: number | undefined;
  readonly checkIntervalMs?: number | undefined;
  readonly maxCheckIntervalMs?: number | undefined;
  readonly maxChecks?: number | undefined;
  readonly afterMaxChecks?: "keep-asking" | "dead" | undefined;
  readonly resendWaitsMs?: readonly number[] | undefined;
  readonly maxSends?: number | undefined;
  readonly maxRejects?: number | undefined;
  readonly rejectWaitsMs?: readonly number[] | undefined;
  readonly outageRecheckMs?: number | undefined;
}

/** The service's options from the section: only what is set (the rest is the service's default), each queue's `checkAfterMs`, and the queues ordered by key. */
export function serviceOptions(r: ReliableSettings): ReliableMessageOptionsInput {
  const queueCheckAfterMs = Object.fromEntries(
    Object.entries(r.queues).flatMap(([queue, q]) => (q.checkAfterMs === undefined ? [] : [[queue, q.checkAfterMs] as const])),
  );
  const orderedQueues = Object.entries(r.queues).flatMap(([queue, q]) => (q.orderByKey === true ? [queue] : []));
  const set = {
    checkAfterMs: r.checkAfterMs,
    checkIntervalMs: r.checkIntervalMs,
    maxCheckIntervalMs: r.maxCheckIntervalMs,
    maxChecks: r.maxChecks,
    afterMaxChecks: r.afterMaxChecks,
    resendWaitsMs: r.resendWaitsMs,
    maxSends: r.maxSends,
    maxRejects: r.maxRejects,
    rejectWaitsMs: r.rejectWaitsMs,
    outageRecheckMs: r.outageRecheckMs,
  };
  const subscriptions = Object.fromEntries(Object.entries(r.queues).flatMap(([queue, q]) => (q.subscriptions === undefined ? [] : [[queue, q.subscriptions] as const])));
  return {
    ...Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined)),
    ...(Object.keys(queueCheckAfterMs).length > 0 ? { queueCheckAfterMs } : {}),
    ...(orderedQueues.length > 0 ? { orderedQueues } : {}),
    ...(Object.keys(subscriptions).length > 0 ? { subscriptions } : {}),
  };
}

export type ReliableConfig = z.output<typeof reliableSection>;
