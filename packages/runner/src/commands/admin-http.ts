import { errorMessage, MsgxError, type LineageQuery } from "@msgx/core";

/** Calls a running runner's admin API: JSON in and out, the bearer token when given. */
export type AdminCall = <T>(method: string, path: string, body?: unknown) => Promise<T | undefined>;

/**
 * One client for every `--url` admin command. A GET answered 404 is `undefined` (not there); any
 * other 4xx is the caller's mistake (`CONFIG`); anything else not OK is `INFRA`; an unreachable
 * runner is `DEPENDENCY_UNAVAILABLE`.
 */
export function adminHttp(baseUrl: string, token: string | undefined): AdminCall {
  checkRunnerUrl(baseUrl);
  return async <T>(method: string, path: string, body?: unknown): Promise<T | undefined> => {
    const res = await fetch(new URL(path, baseUrl), {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }).catch((e: unknown) => {
      throw unreachableRunner(baseUrl, e);
    });
    if (res.status === 404 && method === "GET") return undefined;
    if (!res.ok) {
      // A 4xx is the caller's mistake (bad value, unknown id, wrong state or token): exit 2, like a usage error.
      const kind = res.status >= 400 && res.status < 500 ? "CONFIG" : "INFRA";
      const text = (await res.text()).trim();
      // The runner answers errors as { error, message }; anything else (a proxy's page) is shown as sent.
      throw new MsgxError(kind, `${method} ${path}: HTTP ${res.status} ${errorText(text)}`, { retriable: false });
    }
    return (await res.json()) as T;
  };
}

/** A `--url` is the address `msgx run` prints, scheme included; anything else is a usage error (CONFIG, exit 2) showing that form. */
export function checkRunnerUrl(url: string): void {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed?.protocol === "http:" || parsed?.protocol === "https:") return;
  const guess = /^[\w.-]+:\d+(\/.*)?$/.test(url) || /^\[[\da-f:]+\]:\d+/i.test(url) ? `http://${url}` : "http://127.0.0.1:8080";
  throw new MsgxError("CONFIG", `--url ${url} is not a URL of a runner: give it as \`msgx run\` prints it, scheme included: --url ${guess}`);
}

function errorText(text: string): string {
  try {
    const message = (JSON.parse(text) as { message?: unknown } | null)?.message;
    return typeof message === "string" ? message : text;
  } catch {
    return text;
  }
}

/**
 * What every `--url` command says when no runner answers at `baseUrl`: the address, the cause
 * (`fetch failed: connect ECONNREFUSED …`, not a bare `fetch failed`) and the way out.
 */
export function unreachableRunner(baseUrl: string, cause: unknown, wayOut = "start one with `msgx run` and pass the URL it prints, or drop --url to open the data directory"): MsgxError {
  const why = cause instanceof Error && cause.cause instanceof Error ? `${cause.message}: ${cause.cause.message}` : errorMessage(cause);
  return new MsgxError("DEPENDENCY_UNAVAILABLE", `no msgx runner answers at ${baseUrl} (${why}): ${wayOut}`, { cause, retriable: false });
}

/** The query string of a lineage route (`/admin/…/lineage`) asking for the page `q`. */
export const lineageQueryString = (q: LineageQuery): string => `?limit=${q.limit}${q.beforeVersion !== undefined ? `&before=${q.beforeVersion}` : ""}`;
