import type { Command } from "commander";
import { ErrorClass, MsgxError, type ReplaySelection } from "@msgx/core";
import { createMailboxTables, missingMailboxTables } from "@msgx/adapters-mysql";
import { buildParts } from "../app/build-parts.js";
import type { MsgxConfig } from "../config/config-schema.js";
import { createLogger } from "../logging.js";
import { directAdmin, httpAdmin, type AdminApi } from "./admin-api.js";
import { adminParts } from "./admin-parts.js";
import { registerLineageCommands } from "./lineage-commands.js";
import { configFrom, remoteToken, printJson, remoteCommand, withCommonOptions, type CommonFlags } from "./common-options.js";

interface AdminFlags extends CommonFlags {
  readonly url?: string;
  readonly token?: string;
}

async function withAdmin(flags: AdminFlags, fn: (api: AdminApi) => Promise<void>): Promise<void> {
  const config = configFrom(flags);
  const direct = async () => {
    const parts = await adminParts(config, createLogger("warn", 2));
    return directAdmin(parts, parts.maintenance, config);
  };
  const api = flags.url ? httpAdmin(flags.url, remoteToken(flags, config.http.token)) : await direct();
  try {
    await fn(api);
  } finally {
    await api.close();
  }
}

/** `migrate --mailbox-dev`: the upstream's two mailbox tables on `mysql.url`, as its DDL has them (`createMailboxTables`). */
async function createDevelopmentMailbox(config: MsgxConfig): Promise<void> {
  if (config.mysql.url === undefined) throw new MsgxError("CONFIG", "--mailbox-dev creates the MySQL mailbox tables: give --mysql <url> (the embedded mailbox needs none)");
  if (config.profile === "production") throw new MsgxError("CONFIG", "--mailbox-dev is for development: in production the mailbox tables are the upstream's");
  const mysql = await import("mysql2/promise");
  const pool = mysql.createPool({ uri: config.mysql.url, connectionLimit: 1 });
  try {
    const names = { inbound: config.mysql.inbound, outbound: config.mysql.outbound };
    const missing = await missingMailboxTables(pool as never, names);
    await createMailboxTables(pool as never, names);
    process.stdout.write(missing.length > 0 ? `mailbox tables created (development): ${missing.join(", ")}\n` : "mailbox tables already exist\n");
  } finally {
    await pool.end();
  }
}


export function registerAdminCommands(program: Command): void {
  withCommonOptions(program.command("migrate"))
    .description("create or upgrade msgx's own tables (PostgreSQL or the embedded data directory); safe to re-run")
    .option("--mailbox-dev", "also create the MySQL mailbox tables (cminmsgs, coutmsgs; the configured names) if absent: for development, never production, where they are the upstream's")
    .action(async (flags: CommonFlags & { readonly mailboxDev?: boolean }) => {
      const config = configFrom(flags);
      if (flags.mailboxDev) await createDevelopmentMailbox(config);
      const parts = await buildParts(config, createLogger("info", 2), { admin: true });
      await parts.close();
      process.stdout.write("migrations are up to date\n");
    });

  remoteCommand(program, "status", "head, backlog by status, dead letters, backfill debt, delivery lag, horizon").action(async (flags: AdminFlags) =>
    withAdmin(flags, async (api) => {
      const s = await api.status();
      const now = Date.now();
      printJson({
        ...s,
        headAgeSeconds: s.head ? Math.round((now - s.head.receivedAt) / 1000) : null,
        deliveryLagSeconds: Object.fromEntries(Object.entries(s.delivery).map(([t, d]) => [t, d.oldestPendingAt === null ? 0 : Math.round((now - d.oldestPendingAt) / 1000)])),
      });
    }),
  );

  const messages = program.command("messages").description("inspect processed messages");
  remoteCommand(messages, "show", "one message's processing record: status, identity, error history").argument("<id>", "mailbox id").action(async (id: string, flags: AdminFlags) =>
    withAdmin(flags, async (api) => {
      const r = await api.message(parseId(id));
      if (!r) throw new MsgxError("CONFIG", `no message ${id}`);
      printJson(r);
    }),
  );

  const dead = program.command("dead-letters").description("DEAD messages kept for review");
  remoteCommand(dead, "list", "list DEAD messages, oldest first")
    .option("--limit <n>", "how many", "50")
    .option("--after <id>", "only ids after this one (paging)")
    .action(async (flags: AdminFlags & { limit: string; after?: string }) =>
      withAdmin(flags, async (api) => {
        const rows = await api.deadLetters({ limit: parseId(flags.limit), ...(flags.after ? { afterMsgId: parseId(flags.after) } : {}) });
        printJson(rows.map((r) => ({ msgId: r.msgId, errorClass: r.errorClass, reason: r.reason, identity: r.identityKey, attempts: r.attempts, updatedAt: new Date(r.updatedAt).toISOString() })));
      }),
    );

  const snapshots = program.command("snapshots").description("the SCHD_SNAP_LOG trail of snapshot messages (SCHD/DNLD, SCHD/RESP)");
  remoteCommand(snapshots, "list", "newest first: outcome, reason, RECS, flights, operation day (docs/jobs.md)")
    .option("--limit <n>", "how many (1–1000)", "20")
    .action(async (flags: AdminFlags & { limit: string }) =>
      withAdmin(flags, async (api) => {
        const rows = await api.snapshotLog(parseId(flags.limit));
        printJson(rows.map((r) => ({ ...r, loggedAt: new Date(r.loggedAt).toISOString() })));
      }),
    );

  remoteCommand(program, "replay", "send CODEC_ERROR/UNSUPPORTED/INFRA/EXHAUSTED messages back to PENDING (audited); never MALFORMED or PROTOCOL")
    .option("--class <classes>", "comma-separated error classes, e.g. EXHAUSTED,UNSUPPORTED")
    .option("--ids <ids>", "comma-separated mailbox ids")
    .option("--dry-run", "preview per record: eligible or why not, how it would end now and what it would change on each flight/reference key (field diff), and the expect guard; changes nothing")
    .option("--yes", "preview, then apply guarded by that preview's versions; prints both")
    .option("--expect <json>", "apply only if every key still has the version of a dry run's expect map (JSON), else refuse and change nothing")
    .option("--operator <name>", "who asks (written to the audit row)", process.env["USER"] ?? "cli")
    .addHelpText("after", "\nWithout --dry-run, --yes or --expect the replay applies unguarded. See docs/operations.md \"Replay\".")
    .action(async (flags: AdminFlags & { class?: string; ids?: string; dryRun?: boolean; yes?: boolean; expect?: string; operator: string }) =>
      withAdmin(flags, async (api) => {
        const selection = replaySelection(flags.class, flags.ids);
        if ([flags.dryRun, flags.yes, flags.expect !== undefined].filter(Boolean).length > 1) throw new MsgxError("CONFIG", "give one of --dry-run, --yes, --expect");
        if (flags.dryRun) {
          printJson({ dryRun: true, ...(await api.replayPreview(selection)) });
        } else if (flags.yes) {
          const preflight = await api.replayPreview(selection);
          printJson({ ...preflight, ...(await api.replay(selection, flags.operator, { expect: preflight.expect })) });
        } else {
          const expect = flags.expect === undefined ? undefined : expectMap(flags.expect);
          printJson(await api.replay(selection, flags.operator, expect === undefined ? {} : { expect }));
        }
      }),
    );

  const audit = program.command("audit").description("the operator audit trail (replays, UNSUPPORTED messages skipped or exhausted, reliable-message deletes)");
  remoteCommand(audit, "list", "newest first: id, time, operator, action, message ids, detail")
    .option("--limit <n>", "how many (1–1000)", "20")
    .option("--after <auditId>", "only entries older than this one (paging)")
    .action(async (flags: AdminFlags & { limit: string; after?: string }) =>
      withAdmin(flags, async (api) => {
        const rows = await api.audits(parseId(flags.limit), flags.after ? parseId(flags.after) : undefined);
        printJson(rows.map((r) => ({ ...r, at: new Date(r.at).toISOString() })));
      }),
    );

  const flights = program.command("flights").description("inspect flight state");
  remoteCommand(flights, "show", "a flight's current state as published (docs/events.md)").argument("<flid>", "FLID").action(async (flid: string, flags: AdminFlags) =>
    withAdmin(flags, async (api) => {
      const f = await api.flight(flid);
      if (!f) throw new MsgxError("CONFIG", `no flight ${flid}`);
      printJson(f);
    }),
  );
  registerLineageCommands(program, flights);
}

function parseId(raw: string): number {
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0) throw new MsgxError("CONFIG", `not a number: ${raw}`);
  return n;
}

/** A dry run's `expect` map as given on the command line: `{"flight:<FLID>": 3, "reference:<RTYPE>:<RKEY>": null}`. */
function expectMap(raw: string): Record<string, number | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new MsgxError("CONFIG", `--expect is not JSON: ${raw}`);
  }
  const ok =
    typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) && Object.values(parsed).every((v) => v === null || (Number.isSafeInteger(v) && (v as number) >= 0));
  if (!ok) throw new MsgxError("CONFIG", "--expect must be a JSON object of versions (a number or null per key), as a dry run prints it");
  return parsed as Record<string, number | null>;
}

function replaySelection(classes: string | undefined, ids: string | undefined): ReplaySelection {
  if (!classes && !ids) throw new MsgxError("CONFIG", "give --class and/or --ids");
  const known = new Set<string>(Object.values(ErrorClass));
  const cls = classes?.split(",").map((c) => c.trim().toUpperCase());
  const bad = cls?.filter((c) => !known.has(c)) ?? [];
  if (bad.length) throw new MsgxError("CONFIG", `unknown class ${bad.join(", ")}; one of ${[...known].join(", ")}`);
  return { ...(cls ? { errorClasses: cls as ErrorClass[] } : {}), ...(ids ? { msgIds: ids.split(",").map((i) => parseId(i.trim())) } : {}) };
}
