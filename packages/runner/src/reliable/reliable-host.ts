import { requestCause } from "./reliable-admin.js";
import { ReliableMessageService, type ReliableMessageChecker } from "@msgx/reliable";
import type { StepContext } from "../app/step-context.js";
import { serviceOptions } from "../config/reliable-schema.js";
import { httpChecker } from "./http-checker.js";
import { directReliableAdmin, type ReliableAdminApi } from "./reliable-admin.js";
import { directReliableApi, type ReliableMessageApi } from "./reliable-api.js";
import { createReliableMetrics, type ReliableMetrics } from "./reliable-metrics.js";

/** The reliable-message service as the runner hosts it: one service, its API, its metrics and checkers. */
export interface ReliableHost {
  readonly service: ReliableMessageService;
  readonly metrics: ReliableMetrics;
  /** The operator surface (`/admin/reliable-messages`, `msgx reliable`). */
  readonly admin: ReliableAdminApi;
  /** The producer/consumer surface (`/rm/v1`); `onSend` is told whenever a call wrote a send (wake the relay). */
  api(onSend: () => void): ReliableMessageApi;
  /** The checker of `queue`: the parts' own (`AppParts.reliableCheckers`), else its `checkerUrl`, else `defaultCheckerUrl`, else one that always fails ("no checker"). */
  checkerFor(queue: string): ReliableMessageChecker;
}

/**
 * Builds the hosted service from `reliable.*`: the service's timing from the section (unset = the
 * service's defaults), a checker per queue over HTTP, metrics over the store's phase counts.
 */
export function createReliableHost(ctx: StepContext): ReliableHost {
  const { parts, config, clock, logger } = ctx;
  const r = config.reliable;
  const service = new ReliableMessageService({ store: parts.reliable, clock, logger, options: serviceOptions(r), causeOf: requestCause });
  const metrics = createReliableMetrics(
    clock,
    () => service.countByPhase(),
    async () => {
      const held = await service.countHeld();
      return { dead: held.behindDead, live: held.behindLive };
    },
    () => service.countDeliveries(),
  );
  const admin = directReliableAdmin(service, { store: parts.store, clock });
  return {
    service,
    metrics,
    admin: {
      ...admin,
      markDead: async (id) => {
        const outcome = await admin.markDead(id);
        if (outcome.applied) metrics.dead();
        return outcome;
      },
    },
    api: (onSend) => directReliableApi({ service, metrics, topics: parts.queueTopics, createTopics: r.createTopics, topicPrefix: r.topicPrefix, onSend }),
    checkerFor(queue) {
      const given = parts.reliableCheckers?.(queue);
      if (given) return given;
      const own = r.queues[queue];
      const url = own?.checkerUrl ?? r.defaultCheckerUrl;
      if (url === undefined) {
        return async () => {
          metrics.checkback("no-checker");
          throw new Error(`no checker for queue ${queue}: set reliable.queues.${queue}.checkerUrl or reliable.defaultCheckerUrl`);
        };
      }
      const token = own?.checkerUrl !== undefined ? own.checkerToken : r.defaultCheckerToken;
      return httpChecker({ url, token, timeoutMs: r.checkerTimeoutMs, observe: (outcome) => metrics.checkback(outcome) });
    },
  };
}
