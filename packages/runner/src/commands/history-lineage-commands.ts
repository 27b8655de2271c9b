import type { Command } from "commander";
import { MsgxError, systemClock } from "@msgx/core";
import { createLogger } from "../logging.js";
import type { ReliableMessageLineage } from "../reliable/reliable-admin.js";
import { directReliableAdmin, reliableService } from "../reliable/reliable-admin.js";
import { isReliableMessageError } from "@msgx/reliable";
import { isTaskRequestError, TaskService } from "@msgx/tasks";
import { readTaskLineage, type TaskLineage } from "../tasks/task-api.js";
import { adminHttp } from "./admin-http.js";
import type { AppParts } from "../app/app-parts.js";
import { adminParts } from "./admin-parts.js";
import { configFrom, remoteCommand, remoteToken, type CommonFlags } from "./common-options.js";
import { reliableLineageTable, taskLineageTable } from "./history-table.js";

interface Flags extends CommonFlags {
  readonly url?: string;
  readonly token?: string;
  readonly json?: boolean;
}

/**
 * `msgx reliable lineage <messageId>` and `msgx tasks lineage <taskId>` (docs/lineage.md): every
 * state change with its cause, oldest first, as a table or with `--json` as the admin route
 * answers it. Straight on the data, or `--url` through a running runner's
 * `/admin/reliable-messages/:id/lineage` and `/admin/tasks/:taskId/lineage` (the admin token).
 * An unknown id exits 2.
 */
export function registerReliableLineageCommand(reliable: Command): void {
  remoteCommand(reliable, "lineage", "why a message is in its phase: every state change with its cause (API call and caller, check-back answer, resend, reject, dead), oldest first")
    .argument("<messageId>")
    .option("--json", "print the lineage as JSON (the shape of the admin route)")
    .action((id: string, flags: Flags) =>
      show<ReliableMessageLineage>(flags, `message ${id}`, `/admin/reliable-messages/${encodeURIComponent(id)}/lineage`, reliableLineageTable, (parts) =>
        directReliableAdmin(reliableService(parts.reliable, systemClock), { store: parts.store, clock: systemClock }).lineage(id),
      ),
    );
}

export function registerTaskLineageCommand(tasks: Command): void {
  remoteCommand(tasks, "lineage", "why a task is in its status: every change with its cause (create, dispatch, feedback, cancel, callback, watchdog, replay) and caller, oldest first")
    .argument("<taskId>")
    .option("--json", "print the lineage as JSON (the shape of the admin route)")
    .action((id: string, flags: Flags) =>
      show<TaskLineage>(flags, `task ${id}`, `/admin/tasks/${encodeURIComponent(id)}/lineage`, taskLineageTable, (parts) =>
        readTaskLineage(new TaskService({ store: parts.tasks, clock: systemClock }), id),
      ),
    );
}

async function show<T>(flags: Flags, what: string, route: string, table: (l: T) => string, direct: (parts: AppParts) => Promise<T | undefined>): Promise<void> {
  const config = configFrom(flags);
  const parts = flags.url ? undefined : await adminParts(config, createLogger("warn", 2));
  try {
    const lineage = parts ? await direct(parts) : await adminHttp(flags.url!, remoteToken(flags, config.http.token))<T>("GET", route);
    if (lineage === undefined) throw new MsgxError("CONFIG", `no ${what} is stored`, { retriable: false });
    process.stdout.write(`${flags.json ? JSON.stringify(lineage, null, 2) : table(lineage)}\n`);
  } catch (e) {
    // A malformed id is the operator's mistake, as over HTTP (400): exit 2.
    if (isReliableMessageError(e) || isTaskRequestError(e)) throw new MsgxError("CONFIG", e.message, { retriable: false });
    throw e;
  } finally {
    await parts?.close();
  }
}
