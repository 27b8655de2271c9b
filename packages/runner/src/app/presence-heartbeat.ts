import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { errorMessage, RunnerRole, type Logger, type RunnerPresenceStore } from "@msgx/core";
import { startLoop } from "../loops/loop.js";

/** A runner states it is alive this often. */
export const PRESENCE_HEARTBEAT_MS = 5_000;
/** A runner not heard of for three heartbeats is listed as stale (`GET /admin/runners`). */
export const PRESENCE_STALE_MS = 3 * PRESENCE_HEARTBEAT_MS;
/** A runner not heard of for an hour never stopped cleanly: its row is deleted by the others' heartbeats. */
export const PRESENCE_FORGET_MS = 3_600_000;

/** This process's heartbeat in `runner_presence`. */
export interface PresenceHeartbeat {
  readonly runnerId: string;
  /** This runner now leads with `epoch` (its fence; null where the store has none): beats at once. */
  lead(epoch: number | null): void;
  /** Stops beating and deletes this runner's row (a clean stop). A failed delete is logged; the row goes stale. */
  stop(): Promise<void>;
}

/**
 * Starts beating at once as `role`, then every {@link PRESENCE_HEARTBEAT_MS}: an upsert of this
 * runner's row (times are the database's), and a prune of the rows of runners gone for an hour.
 * A failed beat is logged and retried by the loop; the row goes stale meanwhile, which is true.
 */
export function startPresenceHeartbeat(store: RunnerPresenceStore, options: { readonly role: RunnerRole; readonly epoch?: number | null; readonly logger: Logger; readonly startedAt: number }): PresenceHeartbeat {
  const runnerId = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  let role = options.role;
  let epoch = options.epoch ?? null;
  const controller = new AbortController();
  const loop = startLoop(
    "presence-heartbeat",
    async () => {
      await store.beat({ runnerId, host: hostname(), pid: process.pid, role, epoch, startedAt: options.startedAt });
      await store.prune(PRESENCE_FORGET_MS);
      return PRESENCE_HEARTBEAT_MS;
    },
    { logger: options.logger, signal: controller.signal },
  );
  return {
    runnerId,
    lead(next) {
      role = RunnerRole.LEADER;
      epoch = next;
      loop.wake();
    },
    async stop() {
      controller.abort();
      await loop.done;
      await store.leave(runnerId).catch((e: unknown) => options.logger.warn("runner presence: could not remove this runner's row", { runnerId, error: errorMessage(e) }));
    },
  };
}
