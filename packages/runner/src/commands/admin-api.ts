import { adminHttp } from "./admin-http.js";
import type { AuditRow, Clock, FlightPayload, MaintenanceStore, PipelineStatus, ProcRecord, ReplayOptions, ReplayPreflight, ReplayResult, ReplaySelection, SnapshotLogRow } from "@msgx/core";
import { flightToPayload, systemClock } from "@msgx/core";
import type { AppParts } from "../app/app-parts.js";
import { createReplayAdmin } from "../app/replay-admin.js";
import type { MsgxConfig } from "../config/config-schema.js";

/** What the admin commands need, served either by the parts directly or by a running runner. */
export interface AdminApi {
  status(): Promise<PipelineStatus>;
  message(msgId: number): Promise<ProcRecord | undefined>;
  /** The flight as published (the flight event's value, docs/events.md), whichever way it is read. */
  flight(flid: string): Promise<FlightPayload | undefined>;
  deadLetters(query: { afterMsgId?: number; limit: number }): Promise<readonly ProcRecord[]>;
  /** The newest `SCHD_SNAP_LOG` rows, newest first. */
  snapshotLog(limit: number): Promise<readonly SnapshotLogRow[]>;
  /** The dry run: per record eligibility, outcome and changes, and the `expect` guard. */
  replayPreview(selection: ReplaySelection): Promise<ReplayPreflight>;
  /** Refused (nothing written) when `options.expect` no longer holds. */
  replay(selection: ReplaySelection, operator: string, options?: ReplayOptions): Promise<ReplayResult>;
  /** Operator audit rows, newest first; `beforeAuditId` pages to older ones. */
  audits(limit: number, beforeAuditId?: number): Promise<readonly AuditRow[]>;
  close(): Promise<void>;
}

/**
 * Admin straight on the stores (the runner must not be running on an embedded data directory);
 * `maintenance` reads the snapshot log; the replay preflight judges messages with `config`'s handling, as the pump does.
 */
export function directAdmin(parts: AppParts, maintenance: MaintenanceStore, config: MsgxConfig, clock: Clock = systemClock): AdminApi {
  const replay = createReplayAdmin(parts, config, clock);
  return {
    status: () => parts.status.status(),
    message: (id) => parts.store.get(id),
    flight: async (flid) => {
      const f = await parts.flights.get(flid);
      return f ? flightToPayload(f) : undefined;
    },
    deadLetters: (q) => replay.deadLetters(q),
    snapshotLog: (limit) => maintenance.snapshotLog(limit),
    replayPreview: (sel) => replay.preflight(sel),
    replay: (sel, op, options) => replay.replay(sel, op, options),
    audits: (limit, before) => replay.audits(limit, before),
    close: () => parts.close(),
  };
}

/** Admin through a running runner's `/admin/*` HTTP API. */
export function httpAdmin(baseUrl: string, token: string | undefined): AdminApi {
  const call = adminHttp(baseUrl, token);
  return {
    status: async () => (await call<PipelineStatus>("GET", "/admin/status"))!,
    message: (id) => call("GET", `/admin/messages/${id}`),
    flight: (flid) => call("GET", `/admin/flights/${encodeURIComponent(flid)}`),
    deadLetters: async (q) => (await call<ProcRecord[]>("GET", `/admin/dead-letters?limit=${q.limit}${q.afterMsgId !== undefined ? `&after=${q.afterMsgId}` : ""}`)) ?? [],
    snapshotLog: async (limit) => (await call<SnapshotLogRow[]>("GET", `/admin/snapshots?limit=${limit}`)) ?? [],
    replayPreview: async (sel) => {
      const { preview, expect } = (await call<ReplayPreflight>("POST", "/admin/replay", { ...sel, dryRun: true }))!;
      return { preview, expect };
    },
    replay: async (sel, operator, options) => (await call<ReplayResult>("POST", "/admin/replay", { ...sel, operator, ...(options?.expect !== undefined ? { expect: options.expect } : {}) }))!,
    audits: async (limit, before) => (await call<{ entries: AuditRow[] }>("GET", `/admin/audit?limit=${limit}${before !== undefined ? `&after=${before}` : ""}`))?.entries ?? [],
    close: async () => {},
  };
}
