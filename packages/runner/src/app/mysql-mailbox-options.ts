import type { MysqlMailboxOptionsInput } from "@msgx/adapters-mysql";
import type { MsgxConfig } from "../config/config-schema.js";

/** The MySQL mailbox's options from the configuration: the pipeline's mailbox and the ingress thread's are built alike. */
export function mysqlMailboxOptions(config: MsgxConfig): MysqlMailboxOptionsInput {
  return {
    names: { inbound: config.mysql.inbound, outbound: config.mysql.outbound },
    onlyValidStatus: config.mysql.onlyValidStatus,
    upstreamTimeZone: config.mysql.upstreamTimeZone,
    backfillSubsystem: config.mysql.backfillSubsystem,
    ...(config.mysql.groupAppends ? {} : { appendGrouping: null }),
    ...(config.mysql.appendedTextsFromMemory ? {} : { appendedTextChars: 0 }),
    ...(config.mysql.appendedRowsFromMemory ? {} : { appendedRows: 0 }),
    ...(config.shadow ? { pendingIgnoresDateProcessed: true } : {}),
  };
}
