import { SUBSCRIPTION_NAME } from "@msgx/reliable";
import { z } from "zod";
import type { DirectSendInput, ReliableMessageApi } from "../reliable/reliable-api.js";
import { requireBearer } from "./bearer-token.js";
import type { HttpApp } from "./http-app.js";
import { RELIABLE_ERROR_STATUSES } from "./http-error.js";
import { documentScope } from "./route-docs.js";
import { acceptJsonBodies } from "./json-body.js";
import { routeQueue, routeText } from "./zod-validation.js";

const text = z.string().nullish();

/**
 * The body of a prepare. Types are checked here; the limits (id and field lengths, the queue name,
 * at most 20 headers) are the service's (`checkReliableMessageDraft`), answered 400 INVALID_MESSAGE.
 * Unknown keys are refused, so a misspelt `checkDelayMS` is not silently ignored.
 */
const prepareBody = z
  .object({
    messageId: z.string({ error: "messageId is required (a string)" }),
    queue: z.string({ error: "queue is required (a string)" }),
    body: z.unknown().refine((v) => v !== undefined, "body is required (text, or any JSON value)"),
    dataType: text,
    headers: z.record(z.string(), z.string({ error: "header values must be strings" })).nullish(),
    remark: text,
    field1: text,
    field2: text,
    field3: text,
    checkDelayMs: z.number().int().min(0).nullish(),
    key: z
      .string()
      .nullish()
      .describe("The business key, 1–128 characters without control characters: the Kafka record key; on a queue with orderByKey it is required and a key's messages are delivered one at a time in confirm order."),
    deliverAt: z.number().int().min(0).nullish().describe("First sent at this time (epoch ms), at the confirm's send unless the confirm gives a time of its own; at most 30 days ahead."),
    delayMs: z.number().int().min(0).nullish().describe("First sent this long (ms) after this call, unless the confirm gives a time of its own; at most 30 days; not with deliverAt."),
  })
  .strict();
/** A confirm's optional body: when the confirmed message is first sent (a delayed message); it wins over the prepare's time. */
const confirmBody = z
  .object({
    deliverAt: z.number().int().min(0).nullish().describe("First sent at this time (epoch ms), instead of the time given at the prepare; at most 30 days ahead."),
    delayMs: z.number().int().min(0).nullish().describe("First sent this long (ms) after the confirm, instead of the time given at the prepare (0: at once); not with deliverAt."),
  })
  .strict()
  .nullish();
/** A direct send's body: a prepare's without the check-back's `checkDelayMs` (nothing is stored to check). */
const directSendBody = prepareBody.omit({ checkDelayMs: true, deliverAt: true, delayMs: true }).strict();
/** How many ids one batch acknowledgement takes. */
export const MAX_BATCH_ACK = 1_000;
const batchAckBody = z
  .object({
    messageIds: z
      .array(routeText(128), { error: "messageIds is required (an array of message ids)" })
      .min(1, "messageIds is empty")
      .max(MAX_BATCH_ACK, `at most ${MAX_BATCH_ACK} message ids per call`),
  })
  .strict();
const prepareQuery = z.object({ confirm: z.enum(["true", "false"]).default("false") });
/** A message id as `checkReliableMessageDraft` allows it: at most 128 characters. */
const idParams = z.object({ id: routeText(128) });
/**
 * The subscription a consumer's call is for: required for a message of a queue with subscriptions
 * (the service answers 400 naming it when it is missing or unknown), refused for one without.
 */
export const subscriptionQuery = z.object({
  subscription: z
    .string()
    .regex(SUBSCRIPTION_NAME, "subscription is a subscription name: [A-Za-z0-9_-], 1-50 characters")
    .optional()
    .describe("The subscription (consumer group) of the message's queue this call is for; required when the queue has subscriptions."),
});
const rejectBody = z.object({ reason: z.string({ error: "reason is required (a string)" }).min(1, "reason is empty").max(2_000) }).strict();

const orUndefined = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/** The message of a prepare or direct-send body (null fields are absent). */
const directSendInput = (b: z.output<typeof directSendBody>): DirectSendInput => ({
  messageId: b.messageId,
  queue: b.queue,
  body: b.body,
  dataType: orUndefined(b.dataType),
  headers: orUndefined(b.headers),
  remark: orUndefined(b.remark),
  field1: orUndefined(b.field1),
  field2: orUndefined(b.field2),
  field3: orUndefined(b.field3),
  key: orUndefined(b.key),
});

/**
 * `/rm/v1`: the reliable-message service for producers and consumers over HTTP (docs/reliable-message.md
 * "Hosted by the msgx runner"), behind its own bearer token (`reliable.token`, else `http.token`),
 * checked before the body is read. Bodies are JSON up to `maxBodyBytes`. Every client mistake is a
 * 4xx `{ error, message, code? }`: 400 INVALID_MESSAGE (and any malformed request), 404 NOT_FOUND,
 * 409 ALREADY_EXISTS / ILLEGAL_STATE / CONFLICT, 422 UNKNOWN_QUEUE.
 */
export function registerRmRoutes(app: HttpApp, api: ReliableMessageApi, token: string | undefined, maxBodyBytes: number): void {
  requireBearer(app, token);
  documentScope(app, { errors: RELIABLE_ERROR_STATUSES });
  acceptJsonBodies(app, maxBodyBytes);

  app.post("/rm/v1/messages", { schema: { body: prepareBody, querystring: prepareQuery } }, async (request, reply) => {
    const b = request.body;
    const when = { deliverAt: b.deliverAt ?? null, delayMs: b.delayMs ?? null };
    const { created, message } = await api.prepare({ ...directSendInput(b), checkDelayMs: orUndefined(b.checkDelayMs) }, request.query.confirm === "true", when);
    return reply.code(created ? 201 : 200).send({ message });
  });
  app.post("/rm/v1/direct-sends", { schema: { body: directSendBody } }, async (request, reply) => reply.code(202).send(await api.directSend(directSendInput(request.body))));
  app.post("/rm/v1/acks", { schema: { body: batchAckBody, querystring: subscriptionQuery } }, async (request) => api.ackMany(request.body.messageIds, request.query.subscription));
  app.get("/rm/v1/messages/:id", { schema: { params: idParams } }, async (request, reply) => {
    const message = await api.get(request.params.id);
    return message ? { message, heldBehind: await api.heldBehind(request.params.id) } : reply.code(404).send({ error: "not found", code: "NOT_FOUND", message: `no message ${request.params.id}` });
  });
  app.post("/rm/v1/messages/:id/confirm", { schema: { params: idParams, body: confirmBody } }, async (request) =>
    api.confirm(request.params.id, { deliverAt: request.body?.deliverAt ?? null, delayMs: request.body?.delayMs ?? null }),
  );
  app.post("/rm/v1/messages/:id/cancel", { schema: { params: idParams } }, async (request) => api.cancel(request.params.id));
  app.post("/rm/v1/messages/:id/ack", { schema: { params: idParams, querystring: subscriptionQuery } }, async (request) => api.ack(request.params.id, request.query.subscription));
  app.post("/rm/v1/messages/:id/reject", { schema: { params: idParams, body: rejectBody, querystring: subscriptionQuery } }, async (request) =>
    api.reject(request.params.id, request.body.reason, request.query.subscription),
  );
  app.post("/rm/v1/queues/:queue/replay-dead", { schema: { params: z.object({ queue: routeQueue }) } }, async (request) => api.replayDead(request.params.queue));
}
