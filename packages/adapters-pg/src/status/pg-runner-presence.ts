import { compareRunners, type RunnerBeat, type RunnerPresence, type RunnerPresenceStore, type RunnerRole } from "@msgx/core";
import { sql, type Kysely } from "kysely";
import { pgCall } from "../pg-error-map.js";
import type { MsgxDatabase } from "../rows/tables.js";
import { toMs, toNumber } from "../rows/values.js";

/**
 * `RunnerPresenceStore` on PostgreSQL/PGlite over `runner_presence` (`0019_console`). Every time
 * is the server's `now()`, so runners whose host clocks disagree are compared on one clock; a
 * statement each, on the pool (never the leadership session, which must stay free to fail alone).
 */
export class PgRunnerPresence implements RunnerPresenceStore {
  constructor(private readonly db: Kysely<MsgxDatabase>) {}

  async beat(b: RunnerBeat): Promise<void> {
    await pgCall("runner presence beat", () =>
      sql`
        INSERT INTO runner_presence (runner_id, host, pid, role, epoch, started_at, seen_at)
        VALUES (${b.runnerId}, ${b.host}, ${b.pid}::integer, ${b.role}, ${b.epoch}::bigint, to_timestamp(${b.startedAt}::bigint / 1000.0), now())
        ON CONFLICT (runner_id) DO UPDATE SET
          host = EXCLUDED.host, pid = EXCLUDED.pid, role = EXCLUDED.role, epoch = EXCLUDED.epoch,
          started_at = EXCLUDED.started_at, seen_at = EXCLUDED.seen_at`.execute(this.db),
    );
  }

  async leave(runnerId: string): Promise<void> {
    await pgCall("runner presence leave", () => sql`DELETE FROM runner_presence WHERE runner_id = ${runnerId}`.execute(this.db));
  }

  async list(options: { readonly staleAfterMs: number }): Promise<readonly RunnerPresence[]> {
    const { rows } = await pgCall("runner presence list", () =>
      sql<{ runner_id: string; host: string; pid: unknown; role: RunnerRole; epoch: unknown; started_at: unknown; seen_at: unknown; stale: boolean }>`
        SELECT runner_id, host, pid, role, epoch, started_at, seen_at,
               seen_at < now() - make_interval(secs => ${options.staleAfterMs}::bigint / 1000.0) AS stale
        FROM runner_presence`.execute(this.db),
    );
    return rows
      .map((r) => ({
        runnerId: r.runner_id,
        host: r.host,
        pid: toNumber(r.pid),
        role: r.role,
        epoch: r.epoch === null ? null : toNumber(r.epoch),
        startedAt: toMs(r.started_at),
        seenAt: toMs(r.seen_at),
        stale: r.stale,
      }))
      .sort(compareRunners);
  }

  async prune(olderThanMs: number): Promise<number> {
    const result = await pgCall("runner presence prune", () =>
      sql`DELETE FROM runner_presence WHERE seen_at < now() - make_interval(secs => ${olderThanMs}::bigint / 1000.0)`.execute(this.db),
    );
    return Number(result.numAffectedRows ?? 0n);
  }
}
