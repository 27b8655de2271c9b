import { adminHttp } from "./admin-http.js";
import type { FlightPayload, MaintenanceStore, PipelineStatus, ProcRecord, ReplayPreview, ReplayResult, ReplaySelection, SnapshotLogRow } from "@msgx/core";
import { flightToPayload, ReplayService } from "@msgx/core";
import type { AppParts } from "../app/app-parts.js";

/** What the admin commands need, served either by the parts directly or by a running runner. */
export interface AdminApi {
  status(): Promise<PipelineStatus>;
  message(msgId: number): Promise<ProcRecord | undefined>;
  /** The flight as published (the flight event's value, docs/events.md), whichever way it is read. */
  flight(flid: string): Promise<FlightPayload | undefined>;
  deadLetters(query: { afterMsgId?: number; limit: number }): Promise<readonly ProcRecord[]>;
  /** The newest `SCHD_SNAP_LOG` rows, newest first. */
  snapshotLog(limit: number): Promise<readonly SnapshotLogRow[]>;
  replayPreview(selection: ReplaySelection): Promise<readonly ReplayPreview[]>;
  replay(selection: ReplaySelection, operator: string): Promise<ReplayResult>;
  close(): Promise<void>;
}

/**
 * Admin straight on the stores (the runner must not be running on an embedded data directory);
 * `maintenance` reads the snapshot log.
 */
export function directAdmin(parts: AppParts, maintenance: MaintenanceStore, clock = { now: () => Date.now() }): AdminApi {
  const replay = new ReplayService({ store: parts.store, clock });
  return {
    status: () => parts.status.status(),
    message: (id) => parts.store.get(id),
    flight: async (flid) => {
      const f = await parts.flights.get(flid);
      return f ? flightToPayload(f) : undefined;
    },
    deadLetters: (q) => parts.store.list({ statuses: ["DEAD"], limit: q.limit, ...(q.afterMsgId !== undefined ? { afterMsgId: q.afterMsgId } : {}) }),
    snapshotLog: (limit) => maintenance.snapshotLog(limit),
    replayPreview: (sel) => replay.preview(sel),
    replay: (sel, op) => replay.replay(sel, op),
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
    replayPreview: async (sel) => (await call<{ preview: ReplayPreview[] }>("POST", "/admin/replay", { ...sel, dryRun: true }))!.preview,
    replay: async (sel, operator) => (await call<ReplayResult>("POST", "/admin/replay", { ...sel, operator }))!,
    close: async () => {},
  };
}
