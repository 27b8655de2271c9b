import type { Command } from "commander";
import { DEFAULT_LINEAGE_LIMIT, MAX_LINEAGE_LIMIT, MsgxError, type LineagePage, type LineageQuery, type LineageReader } from "@msgx/core";
import { createLogger } from "../logging.js";
import { adminHttp, lineageQueryString } from "./admin-http.js";
import { adminParts } from "./admin-parts.js";
import { configFrom, remoteToken, withCommonOptions, withRemoteOptions, type CommonFlags } from "./common-options.js";
import { lineageTable } from "./lineage-table.js";

interface LineageFlags extends CommonFlags {
  readonly url?: string;
  readonly token?: string;
  readonly limit: string;
  readonly before?: string;
  readonly json?: boolean;
}

const EMPTY: LineagePage = { versions: [], next: null };

/**
 * `msgx flights lineage <FLID>` (under the `flights` command) and `msgx reference lineage <RTYPE>
 * <RKEY>`: a key's versions newest first, each with its source message, where its events were
 * published and what changed (docs/lineage.md). Straight on the data, or `--url` through a running
 * runner's `/admin/.../lineage` routes.
 */
export function registerLineageCommands(program: Command, flights: Command): void {
  lineageCommand(flights, "a flight's versions newest first: the message that made each, where it was published (partition@offset), what changed")
    .argument("<flid>", "FLID")
    .action(async (flid: string, flags: LineageFlags) =>
      show(flags, `flight ${flid}`, { flid }, (api, q) => api.flightLineage(flid, q)),
    );
  const reference = program.command("reference").description("inspect reference data (REF_MASTER) history");
  lineageCommand(reference, "a reference entry's versions newest first: the message that made each, where it was published, what changed")
    .argument("<rtype>", "reference type, e.g. AIRL")
    .argument("<rkey>", "the entry's key as sent, e.g. CA")
    .action(async (rtype: string, rkey: string, flags: LineageFlags) =>
      show(flags, `reference ${rtype}/${rkey}`, { rtype: rtype.toUpperCase(), rkey }, (api, q) => api.referenceLineage(rtype.toUpperCase(), rkey, q)),
    );
}

function lineageCommand(parent: Command, description: string): Command {
  const cmd = withCommonOptions(parent.command("lineage")).description(description);
  return withRemoteOptions(withPageOptions(cmd, "versions").option("--json", "print the page as JSON, every change in full (the shape of the admin route)"));
}

/** Prints the page of `read` as a table, or with `--json` as the admin route answers it (`key` first). */
async function show(flags: LineageFlags, what: string, key: Readonly<Record<string, string>>, read: (api: LineageReader, query: LineageQuery) => Promise<LineagePage>): Promise<void> {
  const query = lineageQuery(flags);
  const config = configFrom(flags);
  const parts = flags.url ? undefined : await adminParts(config, createLogger("warn", 2));
  try {
    const api = parts?.lineage ?? httpLineage(flags.url!, remoteToken(flags, config.http.token));
    const page = await read(api, query).catch((e: unknown) => {
      throw e instanceof RangeError ? new MsgxError("CONFIG", e.message) : e;
    });
    if (page.versions.length === 0 && query.beforeVersion === undefined) throw new MsgxError("CONFIG", `no version of ${what} is stored`);
    const json = { ...key, versions: page.versions, next: page.next };
    process.stdout.write(`${flags.json ? JSON.stringify(json, null, 2) : lineageTable(page)}\n`);
  } finally {
    await parts?.close();
  }
}

/** The `--limit`/`--before` flags of a lineage command (`msgx flights|reference|reliable|tasks lineage`). */
export function withPageOptions(cmd: Command, what: string): Command {
  return cmd
    .option("--limit <n>", `how many ${what} (1–${MAX_LINEAGE_LIMIT})`, String(DEFAULT_LINEAGE_LIMIT))
    .option("--before <version>", `only ${what} below this version (paging: the table's last line says which)`);
}

/** The page the `--limit`/`--before` flags ask for; a bad value is a CONFIG error (exit 2). */
export function lineageQuery(flags: Pick<LineageFlags, "limit" | "before">): LineageQuery {
  const limit = Number(flags.limit);
  if (!/^\d+$/.test(flags.limit) || limit < 1 || limit > MAX_LINEAGE_LIMIT) throw new MsgxError("CONFIG", `--limit must be 1–${MAX_LINEAGE_LIMIT}, not ${flags.limit}`);
  if (flags.before !== undefined && !/^[1-9]\d{0,15}$/.test(flags.before)) throw new MsgxError("CONFIG", `--before must be a version (a positive integer), not ${flags.before}`);
  return { limit, ...(flags.before !== undefined ? { beforeVersion: Number(flags.before) } : {}) };
}

/** The lineage routes of a running runner; a 404 (no version stored) is an empty page. */
function httpLineage(baseUrl: string, token: string | undefined): LineageReader {
  const call = adminHttp(baseUrl, token);
  return {
    flightLineage: async (flid, q) => (await call<LineagePage>("GET", `/admin/flights/${encodeURIComponent(flid)}/lineage${lineageQueryString(q)}`)) ?? EMPTY,
    referenceLineage: async (rtype, rkey, q) => (await call<LineagePage>("GET", `/admin/reference/${encodeURIComponent(rtype)}/${encodeURIComponent(rkey)}/lineage${lineageQueryString(q)}`)) ?? EMPTY,
  };
}
