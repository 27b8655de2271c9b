import type { Command } from "commander";
import { isReliableMessageError, ReliableMessageStatus, type ReliableMessageFilter } from "@msgx/reliable";
import { MsgxError, systemClock } from "@msgx/core";
import { serviceOptions } from "../config/reliable-schema.js";
import { createLogger } from "../logging.js";
import { directReliableAdmin, httpReliableAdmin, reliableService, type ReliableAdminApi } from "../reliable/reliable-admin.js";
import { adminParts } from "./admin-parts.js";
import { registerReliableLineageCommand } from "./history-lineage-commands.js";
import { configFrom, remoteToken, printJson, remoteCommand, type CommonFlags } from "./common-options.js";

interface Flags extends CommonFlags {
  readonly url?: string;
  readonly token?: string;
}

async function withApi(flags: Flags, fn: (api: ReliableAdminApi) => Promise<unknown>): Promise<void> {
  const config = configFrom(flags);
  if (flags.url) {
    printJson(await fn(httpReliableAdmin(flags.url, remoteToken(flags, config.http.token))));
    return;
  }
  const parts = await adminParts(config, createLogger("warn", 2));
  try {
    printJson(await fn(directReliableAdmin(reliableService(parts.reliable, systemClock, undefined, serviceOptions(config.reliable)), { store: parts.store, clock: systemClock })));
  } catch (e) {
    // The service's refusals (unknown id, wrong phase) are the operator's mistake, as over HTTP (4xx): exit 2.
    if (isReliableMessageError(e)) throw new MsgxError("CONFIG", e.message, { retriable: false });
    throw e;
  } finally {
    await parts.close();
  }
}

/** A page number or size: a positive integer written with digits, as the admin API takes it. */
function positiveFlag(name: string, value: string): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new MsgxError("CONFIG", `--${name} must be a positive integer, got ${JSON.stringify(value)}`, { retriable: false });
  return Number(value);
}


/** `msgx reliable …`: the operator surface of the reliable-message service (SPEC §4). */
export function registerReliableCommands(program: Command): void {
  const rm = program.command("reliable").description("reliable messages (prepare/confirm/check-back/recovery service): list, show, lineage, resend, mark dead, delete");
  remoteCommand(rm, "list", "list messages, newest first, paged")
    .option("--queue <queue>", "consumer queue")
    .option("--status <status>", `one of ${Object.values(ReliableMessageStatus).join(", ")}`)
    .option("--dead", "only dead messages")
    .option("--page <n>", "page number, from 1", "1")
    .option("--size <n>", "page size", "20")
    .action((flags: Flags & { queue?: string; status?: string; dead?: boolean; page: string; size: string }) =>
      withApi(flags, (api) => {
        if (flags.status && !Object.values(ReliableMessageStatus).includes(flags.status as ReliableMessageStatus)) {
          throw new MsgxError("CONFIG", `unknown status ${flags.status}`);
        }
        const filter: ReliableMessageFilter = {
          ...(flags.queue ? { consumerQueue: flags.queue } : {}),
          ...(flags.status ? { status: flags.status as ReliableMessageStatus } : {}),
          ...(flags.dead ? { dead: true } : {}),
        };
        return api.list(filter, positiveFlag("page", flags.page), positiveFlag("size", flags.size));
      }),
    );
  remoteCommand(rm, "show", "one message, with each subscription's delivery state when its queue has subscriptions").argument("<messageId>").action((id: string, flags: Flags) => withApi(flags, async (api) => (await api.get(id)) ?? { error: `no message ${id}` }));
  registerReliableLineageCommand(rm);
  remoteCommand(rm, "resend", "resend one SENDING or dead message (a new outbox row, same message id)")
    .argument("<messageId>")
    .option("--subscription <name>", "only its delivery to this subscription (required when its queue has subscriptions)")
    .action((id: string, flags: Flags & { subscription?: string }) => withApi(flags, (api) => api.resend(id, flags.subscription)));
  remoteCommand(rm, "mark-dead", "mark one message dead (jobs leave it alone)")
    .argument("<messageId>")
    .option("--subscription <name>", "only its delivery to this subscription (required when its queue has subscriptions)")
    .action((id: string, flags: Flags & { subscription?: string }) => withApi(flags, (api) => api.markDead(id, flags.subscription)));
  remoteCommand(rm, "delete", "delete one message whatever its phase (never delivered or resent again); audited (msgx audit)")
    .argument("<messageId>")
    .option("--operator <name>", "who asks (written to the audit row)", process.env["USER"] ?? "cli")
    .action((id: string, flags: Flags & { operator: string }) =>
      withApi(flags, async (api) => {
        const { deleted } = await api.delete(id, flags.operator);
        if (deleted === null) throw new MsgxError("CONFIG", `no message ${id}`, { retriable: false });
        return { deleted };
      }),
    );
  remoteCommand(rm, "resend-dead", "resend every dead message of a queue, in pages")
    .requiredOption("--queue <queue>", "consumer queue")
    .option("--size <n>", "page size", "100")
    .action((flags: Flags & { queue: string; size: string }) => withApi(flags, (api) => api.resendDead(flags.queue, positiveFlag("size", flags.size))));
}
