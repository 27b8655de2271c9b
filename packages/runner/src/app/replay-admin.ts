import { ReplayService, type AuditRow, type Clock, type ErrorClass, type RecordGroup, type ReplayPreflight, type ReplayResult, type ReplaySelection, type ReplayOptions } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import type { AppParts } from "./app-parts.js";
import { messageHandling } from "./message-handling.js";

/** A message's raw text as the mailbox holds it, with the envelope its record decoded (null when none did). */
export interface RawMessage {
  readonly msgId: number;
  readonly xml: string;
  readonly meta: unknown;
}

/** What `/admin` and the CLI do with dead letters, replay and the audit trail, over one runner's parts. */
export interface ReplayAdmin {
  deadLetters(query: { afterMsgId?: number; limit: number; errorClass?: ErrorClass }): ReturnType<AppParts["store"]["list"]>;
  deadLetterGroups(idsPerGroup: number): Promise<readonly RecordGroup[]>;
  /** The dry run: eligibility, outcome and changes per record, and the `expect` guard (core `ReplayService.preflight`). */
  preflight(selection: ReplaySelection): Promise<ReplayPreflight>;
  /** Throws `ReplayConflictError` when `options.expect` no longer holds; nothing is written then. */
  replay(selection: ReplaySelection, operator: string, options?: ReplayOptions): Promise<ReplayResult>;
  /** The raw text of a mailbox row; undefined when the row is gone. */
  raw(msgId: number): Promise<RawMessage | undefined>;
  /** Audit rows newest first; `beforeAuditId` pages to older ones. */
  audits(limit: number, beforeAuditId?: number): Promise<readonly AuditRow[]>;
}

/**
 * The replay service with its preflight reading and judging messages exactly as the pump does:
 * the same mailbox, codec options, processors, budgets and record limit, from the configuration
 * the pump is built from (`messageHandling`, `createExchangeRouter`).
 */
export function createReplayAdmin(parts: AppParts, config: MsgxConfig, clock: Clock): ReplayAdmin {
  const handling = messageHandling(config);
  const service = new ReplayService({
    store: parts.store,
    clock,
    preflight: {
      mailbox: parts.mailbox,
      decode: handling.decode,
      processors: handling.processors,
      identity: handling.identity,
      policy: handling.policy,
      unsupported: handling.unsupported,
      maxRecordBytes: config.kafka.maxRecordBytes,
      contentHash: handling.contentHash,
    },
  });
  return {
    deadLetters: (q) =>
      parts.store.list({
        statuses: ["DEAD"],
        limit: q.limit,
        ...(q.afterMsgId !== undefined ? { afterMsgId: q.afterMsgId } : {}),
        ...(q.errorClass !== undefined ? { errorClasses: [q.errorClass] } : {}),
      }),
    deadLetterGroups: (idsPerGroup) => parts.store.groups(["DEAD"], idsPerGroup),
    preflight: (selection) => service.preflight(selection),
    replay: (selection, operator, options) => service.replay(selection, operator, options),
    raw: async (msgId) => {
      const read = (await parts.mailbox.readRaw([msgId])).get(msgId);
      if (!read?.found) return undefined;
      const record = await parts.store.get(msgId);
      return { msgId, xml: read.text, meta: record?.meta ?? null };
    },
    audits: (limit, beforeAuditId) => parts.store.audits(limit, beforeAuditId),
  };
}

