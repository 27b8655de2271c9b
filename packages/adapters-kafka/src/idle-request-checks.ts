import type { Kafka } from "kafkajs";
import { onEachCluster } from "./kafkajs-clusters.js";

/** The parts of kafkajs' (private) `RequestQueue`, one per broker connection, this file changes. */
interface RequestQueueLike {
  pending: readonly unknown[];
  throttledUntil: number;
  scheduleCheckPendingRequests(): void;
}

/** The parts of kafkajs' (private) cluster and connection pools this file reaches through. */
interface ClusterLike {
  readonly connectionPoolBuilder?: { build?: (...args: unknown[]) => Promise<{ readonly pool?: readonly { readonly requestQueue?: RequestQueueLike }[] }> };
}

/**
 * Stops the broker connections of `kafka` from waking every millisecond while nothing waits to be
 * sent (kafkajs issues #1556, #1704, open, unfixed in 2.2.4).
 *
 * Each kafkajs connection has a request queue that, after every answer, schedules a check of its
 * requests held back for throttling, and the check schedules the next one. With none held back
 * and no throttling its delay is negative, which Node runs after 1 ms: an endless 1 ms timer per
 * connection that has ever had an answer. Idle, a runner's main thread woke ~1,700 times a second
 * and spent ~40 ms of CPU a second on it (docs/benchmarks.md, "2026-12-07 (2)").
 *
 * This skips scheduling exactly then — nothing held back and no throttling in force — on the
 * request queues of every connection the clusters of `kafka` build (`onEachCluster`): a request
 * held back schedules its check when it is queued, and every answer and every timeout checks the
 * queue again, so no check that could send something is lost. Throttled or holding requests, the
 * queue works as kafkajs wrote it. Returns false, changing nothing, when the installed kafkajs has
 * no cluster factory.
 */
export function stopIdleRequestChecks(kafka: Kafka): boolean {
  return onEachCluster(kafka, (cluster) => {
    const builder = (cluster as ClusterLike).connectionPoolBuilder;
    const build = builder?.build;
    if (builder === undefined || typeof build !== "function") return;
    builder.build = async (...args: unknown[]) => {
      const pool = await Reflect.apply(build, builder, args);
      for (const connection of pool.pool ?? []) if (connection.requestQueue !== undefined) quiet(connection.requestQueue);
      return pool;
    };
  });
}

function quiet(queue: RequestQueueLike): void {
  const schedule = queue.scheduleCheckPendingRequests;
  if (typeof schedule !== "function") return;
  queue.scheduleCheckPendingRequests = function (this: RequestQueueLike) {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    schedule.call(this);
  };
}
