import { CheckBackJob, RecoveryJob, RELIABLE_MESSAGE_DLQ_TARGET_PREFIX, RELIABLE_MESSAGE_TARGET_PREFIX, RELIABLE_SUBSCRIPTION_TARGET_PREFIX, ReliableMessageStatus, splitSubscriptionTarget } from "@msgx/reliable";
import { type RouterStep } from "@msgx/core";
import type { StepContext } from "../app/step-context.js";
import { TargetRelay } from "../app/target-relay.js";
import type { ReliableHost } from "./reliable-host.js";

/** How often the relay looks for targets with pending rows (a send written over `/rm/v1` wakes it at once). */
const DISCOVER_EVERY_MS = 1_000;
/** Messages one check-back batch asks about. */
const CHECK_BATCH = 100;
/** Batches one check-back or recovery run may do before it waits `reliable.jobIntervalMs`. */
const MAX_BATCHES_PER_RUN = 10;

/** The relay's step name: `/rm/v1` and the jobs wake it after writing a send. */
export const RELIABLE_RELAY_STEP = "reliable-relay";


/**
 * The reliable-message service's router steps (docs/reliable-message.md "Hosted by the msgx runner"):
 * - `reliable-relay`: one `MsgDispatcher` per target with pending rows, `KAFKA:rmq.<queue>`,
 *   `KAFKA:rmq-dlq.<queue>` and `KAFKA:rmq-sub.<queue>.<subscription>` (so a stuck queue or
 *   subscription blocks only itself); before a queue's first send it
 *   creates `rmq.<queue>` and `rmq-dlq.<queue>` (`reliable.createTopics`; JSONL needs none);
 * - `reliable-check-back`: asks each queue's checker about WAITING_CONFIRM messages past their
 *   check delay (the checker of a queue is registered the first time one of its messages is due);
 * - `reliable-recovery`: resends unacknowledged messages, reading the outbox to count only sends
 *   the broker acknowledged, redelivers rejected ones, marks dead past the budgets.
 */
export function reliableSteps(ctx: StepContext, host: ReliableHost): RouterStep[] {
  const { parts, config, clock, logger } = ctx;
  const { service, metrics } = host;
  const r = config.reliable;
  // Each kind of reliable target and the topic it goes to: the queue topics and their dead-letter
  // topics. The targets in the outbox keep their fixed prefixes; only the topics are configurable.
  // A subscription's target ends `<queue>.<subscription>`: the queue is what comes before the last dot.
  const queueTopics = (queue: string) => [`${r.topicPrefix}${queue}`, `${r.dlqTopicPrefix}${queue}`];
  const targetKinds = [
    { targetPrefix: RELIABLE_MESSAGE_TARGET_PREFIX, topicPrefix: r.topicPrefix, create: queueTopics },
    { targetPrefix: RELIABLE_MESSAGE_DLQ_TARGET_PREFIX, topicPrefix: r.dlqTopicPrefix, create: queueTopics },
    {
      targetPrefix: RELIABLE_SUBSCRIPTION_TARGET_PREFIX,
      topicPrefix: r.subscriptionTopicPrefix,
      create: (rest: string) => [`${r.subscriptionTopicPrefix}${rest}`, `${r.dlqTopicPrefix}${splitSubscriptionTarget(rest).queue}`],
    },
  ] as const;
  const relay = new TargetRelay(ctx, {
    createTopics: r.createTopics,
    unready: "reliable relay: cannot create the queue's topics yet; its sends wait in the outbox",
    ready: "reliable relay: the queue's topics are there",
  });
  const checkBack = new CheckBackJob({ service, store: parts.reliable, clock, logger }, { batchSize: CHECK_BATCH });
  const checkedQueues = new Set<string>();
  const recovery = new RecoveryJob({ service, store: parts.reliable, clock, logger, sends: parts.outbox });

  return [
    {
      name: RELIABLE_RELAY_STEP,
      run: async (signal) => {
        for (const kind of targetKinds) {
          for (const target of await parts.outbox.pendingTargets(kind.targetPrefix)) {
            signal.throwIfAborted();
            const queue = target.slice(kind.targetPrefix.length);
            await relay.drain({ target, topic: `${kind.topicPrefix}${queue}`, create: kind.create(queue), about: { queue } }, signal);
          }
        }
        return { after: DISCOVER_EVERY_MS, wake: [] };
      },
    },
    {
      name: "reliable-check-back",
      run: async (signal) => {
        let confirmed = 0;
        for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
          // The job asks by queue: register the checker of each queue with a message in the batch it is about to take.
          for (const m of await parts.reliable.due(ReliableMessageStatus.WAITING_CONFIRM, clock.now(), CHECK_BATCH)) {
            if (checkedQueues.has(m.consumerQueue)) continue;
            checkBack.registerChecker(m.consumerQueue, host.checkerFor(m.consumerQueue));
            checkedQueues.add(m.consumerQueue);
          }
          const step = await checkBack.step(signal);
          confirmed += step.confirmed;
          metrics.alert("checkback", step.alerts);
          if (!step.more) break;
        }
        return { after: r.jobIntervalMs, wake: confirmed > 0 ? [RELIABLE_RELAY_STEP] : [] };
      },
    },
    {
      name: "reliable-recovery",
      run: async (signal) => {
        let sent = 0;
        for (let i = 0; i < MAX_BATCHES_PER_RUN; i++) {
          const step = await recovery.step(signal);
          sent += step.resent + step.delivered + step.redelivered + step.dead;
          metrics.dead(step.dead);
          if (!step.more) break;
        }
        return { after: r.jobIntervalMs, wake: sent > 0 ? [RELIABLE_RELAY_STEP] : [] };
      },
    },
  ];
}
