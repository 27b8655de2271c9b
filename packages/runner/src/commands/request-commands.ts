import { adminHttp } from "./admin-http.js";
import type { Command } from "commander";
import { MsgxError, RequestStatus, systemClock, type RefEntry, type RequestRecord } from "@msgx/core";
import { createRequestAdmin } from "../app/request-steps.js";
import type { RequestAdmin } from "../http/http-context.js";
import { createLogger } from "../logging.js";
import { adminParts } from "./admin-parts.js";
import { configFrom, remoteToken, printJson, remoteCommand, type CommonFlags } from "./common-options.js";

interface RequestFlags extends CommonFlags {
  readonly url?: string;
  readonly token?: string;
  readonly operator?: string;
}

/** Requests through a running runner's `/admin/requests` and `/admin/reference` routes. */
export function httpRequestAdmin(baseUrl: string, token: string | undefined): RequestAdmin & { close(): Promise<void> } {
  const call = adminHttp(baseUrl, token);
  const q = (params: Record<string, string | number | undefined>) =>
    Object.entries(params)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
      .join("&");
  return {
    schedule: async (from, to, operator) => (await call<RequestRecord>("POST", "/admin/requests/schedule", { from, to, operator }))!,
    reference: async (rtype, operator) => (await call<RequestRecord>("POST", "/admin/requests/ref", { rtype, operator }))!,
    list: async (f) =>
      (await call<RequestRecord[]>("GET", `/admin/requests?${q({ limit: f.limit, status: f.statuses?.[0], type: f.requestType, before: f.beforeId })}`)) ?? [],
    get: (id) => call<RequestRecord>("GET", `/admin/requests/${encodeURIComponent(id)}`),
    referenceTypes: async () => (await call<{ rtype: string; live: number }[]>("GET", "/admin/reference")) ?? [],
    referenceList: async (r) =>
      (await call<{ entries: RefEntry[] }>("GET", `/admin/reference/${encodeURIComponent(r.rtype)}?${q({ limit: r.limit, after: r.afterKey, deleted: r.includeDeleted ? 1 : undefined })}`))?.entries ?? [],
    referenceGet: (rtype, rkey) => call<RefEntry>("GET", `/admin/reference/${encodeURIComponent(rtype)}/${encodeURIComponent(rkey)}`),
    close: async () => {},
  };
}

async function withRequests(flags: RequestFlags, fn: (api: RequestAdmin) => Promise<void>): Promise<void> {
  const config = configFrom(flags);
  if (flags.url) return fn(httpRequestAdmin(flags.url, remoteToken(flags, config.http.token)));
  const logger = createLogger("warn", 2);
  const parts = await adminParts(config, logger);
  try {
    await fn(createRequestAdmin(parts, config, systemClock, logger));
  } finally {
    await parts.close();
  }
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** One line per request for `request list`. */
const summary = (r: RequestRecord) => ({
  requestId: r.requestId,
  type: r.requestType,
  status: r.status,
  seqn: r.seqn,
  params: r.params,
  registeredAt: iso(r.registeredAt),
  sentAt: iso(r.sentAt),
  outboundId: r.outboundId,
  closeReason: r.closeReason,
  match: r.match ? `${r.match.rule} by message ${r.match.msgId}` : null,
  lastError: r.lastError,
});

/** Says plainly when a request could not be sent yet (the runner's coordinator keeps trying). */
function report(r: RequestRecord): void {
  printJson(r);
  if (r.status === RequestStatus.REGISTERED) {
    process.stderr.write(`request ${r.requestId} is registered but not sent yet (${r.lastError ?? "send pending"}); the running msgx retries it, looking the row up first\n`);
  }
}

const operator = (flags: RequestFlags) => flags.operator ?? process.env["USER"] ?? "cli";

/** `msgx request schedule|ref|list|show` (docs/requests.md). */
export function registerRequestCommands(program: Command): void {
  const request = program
    .command("request")
    .description("ask the upstream for data through the outbound mailbox (coutmsgs: RQFD, RQRD) and follow the requests; replies are matched and applied by the pipeline");

  remoteCommand(request, "schedule", "ask for the schedule of a time range (RQFD); a newer request of the same type expires an open one")
    .requiredOption("--from <yyyy-MM-ddTHH:mm>", "start of the range, airport local time, inclusive")
    .requiredOption("--to <yyyy-MM-ddTHH:mm>", "end of the range, airport local time, inclusive")
    .option("--operator <name>", "who asks (recorded on the request)")
    .action(async (flags: RequestFlags & { from: string; to: string }) => withRequests(flags, async (api) => report(await api.schedule(flags.from, flags.to, operator(flags)))));

  remoteCommand(request, "ref", "ask for one type of reference data (RQRD); the reply lands in REF_MASTER")
    .argument("<TYPE>", "reference type, one of the 23 upstream types, e.g. ARPT, AIRL, REGN")
    .option("--operator <name>", "who asks (recorded on the request)")
    .action(async (type: string, flags: RequestFlags) => withRequests(flags, async (api) => report(await api.reference(type.toUpperCase(), operator(flags)))));

  remoteCommand(request, "list", "list requests, newest first: status, when sent, how each was closed and which reply matched by which rule")
    .option("--status <status>", `only this status (${Object.values(RequestStatus).join(", ")})`)
    .option("--type <type>", "only this request type (RQFD, RQRD/<TYPE>)")
    .option("--limit <n>", "how many", "50")
    .option("--before <id>", "only requests older than this id (paging)")
    .action(async (flags: RequestFlags & { status?: string; type?: string; limit: string; before?: string }) =>
      withRequests(flags, async (api) => {
        const status = flags.status?.toUpperCase();
        if (status !== undefined && !Object.values<string>(RequestStatus).includes(status)) {
          throw new MsgxError("CONFIG", `unknown status ${flags.status}; one of ${Object.values(RequestStatus).join(", ")}`);
        }
        const limit = Number(flags.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new MsgxError("CONFIG", `--limit must be 1–1000, not ${flags.limit}`);
        if (flags.before !== undefined && !/^\d+$/.test(flags.before)) throw new MsgxError("CONFIG", `--before must be a request id, not ${flags.before}`);
        const rows = await api.list({
          limit,
          ...(status ? { statuses: [status as RequestStatus] } : {}),
          ...(flags.type ? { requestType: flags.type } : {}),
          ...(flags.before ? { beforeId: flags.before } : {}),
        });
        printJson(rows.map(summary));
      }),
    );

  remoteCommand(request, "show", "one request in full: its wire text, attempts, outbound row, and the match audit")
    .argument("<id>", "request id")
    .action(async (id: string, flags: RequestFlags) =>
      withRequests(flags, async (api) => {
        const r = await api.get(id);
        if (!r) throw new MsgxError("CONFIG", `no request ${id}`);
        printJson(r);
      }),
    );
}
