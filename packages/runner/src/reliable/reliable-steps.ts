import { MsgDispatcher, RecoveryJob, RELIABLE_MESSAGE_TARGET_PREFIX, RELIABLE_MESSAGE_TOPIC_PREFIX, type RouterStep } from "@msgx/core";
import type { StepContext } from "../app/step-context.js";
import { reliableService } from "./reliable-admin.js";

const DISCOVER_EVERY_MS = 1_000;
const RECOVERY_EVERY_MS = 30_000;

/**
 * The reliable-message service hosted by the runner: a relay (one `MsgDispatcher` per queue
 * target `KAFKA:rmq.<queue>` that has pending rows, so a stuck queue blocks only itself) and the
 * recovery job that resends unacknowledged messages on their schedule. Check-back needs the
 * producer's checker and runs in the producer's process (see docs/reliable-message.md).
 */
export function reliableSteps(ctx: StepContext): RouterStep[] {
  const { parts, clock, logger } = ctx;
  const dispatchers = new Map<string, MsgDispatcher>();
  const service = reliableService(parts.reliable, clock, logger);
  const recovery = new RecoveryJob({ service, store: parts.reliable, sends: parts.outbox, clock, logger });
  return [
    {
      name: "reliable-relay",
      run: async (signal) => {
        for (const target of await parts.outbox.pendingTargets(RELIABLE_MESSAGE_TARGET_PREFIX)) {
          let d = dispatchers.get(target);
          if (!d) {
            const topic = `${RELIABLE_MESSAGE_TOPIC_PREFIX}${target.slice(RELIABLE_MESSAGE_TARGET_PREFIX.length)}`;
            d = new MsgDispatcher({ outbox: parts.outbox, delivery: parts.delivery, clock, logger }, { target, topics: { [target]: topic } });
            dispatchers.set(target, d);
          }
          // Drain what is due now; a target in backoff or outage waits for the next round.
          for (let i = 0; i < 100; i++) if ((await d.step(signal)).did !== "sent") break;
        }
        return { after: DISCOVER_EVERY_MS, wake: [] };
      },
    },
    {
      name: "reliable-recovery",
      run: async (signal) => {
        await recovery.step(signal);
        return { after: RECOVERY_EVERY_MS, wake: [] };
      },
    },
  ];
}
