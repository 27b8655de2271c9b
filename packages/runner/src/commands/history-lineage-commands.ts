import type { Command } from "commander";
import { MsgxError, systemClock, type LineageQuery } from "@msgx/core";
import { createLogger } from "../logging.js";
import type { ReliableMessageLineage } from "../reliable/reliable-admin.js";
import { directReliableAdmin, reliableService } from "../reliable/reliable-admin.js";
import { isReliableMessageError } from "@msgx/reliable";
import { isTaskRequestError, TaskService } from "@msgx/tasks";
import { readTaskLineage, type TaskLineage } from "../tasks/task-api.js";
import { adminHttp, lineageQueryString } from "./admin-http.js";
import { lineageQuery, withPageOptions } from "./lineage-commands.js";
import type { AppParts } from "../app/app-parts.js";
import { adminParts } from "./admin-parts.js";
import { configFrom, remoteCommand, remoteToken, type CommonFlags } from "./common-options.js";
import { reliableLineageTable, taskLineageTable } from "./history-table.js";

interface Flags extends CommonFlags {
  readonly url?: string;
  readonly token?: string;
  readonly json?: boolean;
  readonly limit: string;
  readonly before?: string;
}

/**
 * `msgx reliable lineage <messageId>` and `msgx tasks lineage <taskId>` (docs/lineage.md): a page
 * of the state changes with their causes, newest first (`--limit`, `--before` as `msgx flights
 * lineage`), as a table or with `--json` as the admin route answers it. Straight on the data, or
 * `--url` through a running runner's
 * `/admin/reliable-messages/:id/lineage` and `/admin/tasks/:taskId/lineage` (the admin token).
 * An unknown id exits 2.
 */
export function registerReliableLineageCommand(reliable: Command): void {
  withPageOptions(remoteCommand(reliable, "lineage", "why a message is in its phase: its state changes with their causes (API call and caller, check-back answer, resend, reject, dead), newest first"), "entries")
    .argument("<messageId>")
    .option("--json", "print the lineage as JSON (the shape of the admin route)")
    .action((id: string, flags: Flags) =>
      show<ReliableMessageLineage>(flags, `message ${id}`, `/admin/reliable-messages/${encodeURIComponent(id)}/lineage`, reliableLineageTable, (parts, query) =>
        directReliableAdmin(reliableService(parts.reliable, systemClock), { store: parts.store, clock: systemClock }).lineage(id, query),
      ),
    );
}

export function registerTaskLineageCommand(tasks: Command): void {
  withPageOptions(remoteCommand(tasks, "lineage", "why a task is in its status: its changes with their causes (create, dispatch, feedback, cancel, callback, watchdog, replay) and callers, newest first"), "entries")
    .argument("<taskId>")
    .option("--json", "print the lineage as JSON (the shape of the admin route)")
    .action((id: string, flags: Flags) =>
      show<TaskLineage>(flags, `task ${id}`, `/admin/tasks/${encodeURIComponent(id)}/lineage`, taskLineageTable, (parts, query) =>
        readTaskLineage(new TaskService({ store: parts.tasks, clock: systemClock }), id, query),
      ),
    );
}

async function show<T>(flags: Flags, what: string, route: string, table: (l: T) => string, direct: (parts: AppParts, query: LineageQuery) => Promise<T | undefined>): Promise<void> {
  const query = lineageQuery(flags);
  const config = configFrom(flags);
  const parts = flags.url ? undefined : await adminParts(config, createLogger("warn", 2));
  try {
    const lineage = parts ? await direct(parts, query) : await adminHttp(flags.url!, remoteToken(flags, config.http.token))<T>("GET", `${route}${lineageQueryString(query)}`);
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
