import { hostname } from "node:os";
import type { PgStores } from "@msgx/adapters-pg";
import { RunnerRole, type Logger } from "@msgx/core";
import type { AppParts } from "./app-parts.js";
import type { PartClosers } from "./part-closers.js";
import { startPresenceHeartbeat } from "./presence-heartbeat.js";

/** What leading the pipeline adds to the parts, and how the delivery port confirms it still leads. */
export type Leadership = Pick<AppParts, "fence" | "leadershipLost" | "leading"> & {
  /** Renews the lease now and answers whether this runner still leads with its epoch (ProducerFencing). */
  readonly confirm?: () => Promise<boolean>;
};

export interface LeadOptions {
  readonly logger: Logger;
  readonly leaseTtlMs: number;
  /** When this runner started (its presence row says so). */
  readonly startedAt: number;
  readonly closers: PartClosers;
  /** Ends the wait for leadership. */
  readonly signal?: AbortSignal;
  /** Told when the wait for leadership begins. */
  readonly standby?: () => void;
}

/**
 * Takes the pipeline's leadership: on PostgreSQL, waits (shown as a standby) until the lease is
 * free and watches for its loss; on PGlite, the one process of the data directory (its lock file)
 * leads by construction and bumps the epoch. Either way the runner's presence heartbeat runs.
 */
export async function leadPipeline(pg: PgStores, options: LeadOptions): Promise<Leadership> {
  const { logger, startedAt, closers } = options;
  if (!pg.leadership) {
    const fence = await pg.bumpEpoch();
    const presence = startPresenceHeartbeat(pg.presence, { role: RunnerRole.LEADER, epoch: fence, logger, startedAt });
    closers.add(() => presence.stop());
    return { fence };
  }
  const leadership = pg.leadership({ holder: `msgx@${hostname()}:${process.pid}`, ttlMs: options.leaseTtlMs });
  logger.info("waiting for pipeline leadership (a standby waits here while another runner leads)");
  options.standby?.();
  closers.add(() => leadership.release());
  // A standby shows itself (GET /admin/runners) while it waits; it is deleted before the lock is released.
  const presence = startPresenceHeartbeat(pg.presence, { role: RunnerRole.STANDBY, logger, startedAt });
  closers.add(() => presence.stop());
  const fence = await leadership.acquireWhenFree(options.signal ? { signal: options.signal } : {});
  presence.lead(fence);
  const leadershipLost = new Promise<string>((resolve) => leadership.watch((why: string) => resolve(why)));
  return { fence, leadershipLost, leading: () => leadership.mayLead(), confirm: () => leadership.confirm() };
}
