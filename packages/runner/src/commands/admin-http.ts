import { MsgxError } from "@msgx/core";

/** Calls a running runner's admin API: JSON in and out, the bearer token when given. */
export type AdminCall = <T>(method: string, path: string, body?: unknown) => Promise<T | undefined>;

/**
 * One client for every `--url` admin command. A GET answered 404 is `undefined` (not there); any
 * other 4xx is the caller's mistake (`CONFIG`); anything else not OK is `INFRA`; an unreachable
 * runner is `DEPENDENCY_UNAVAILABLE`.
 */
export function adminHttp(baseUrl: string, token: string | undefined): AdminCall {
  return async <T>(method: string, path: string, body?: unknown): Promise<T | undefined> => {
    const res = await fetch(new URL(path, baseUrl), {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }).catch((e: unknown) => {
      throw new MsgxError("DEPENDENCY_UNAVAILABLE", `runner at ${baseUrl} is not reachable`, { cause: e });
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

function errorText(text: string): string {
  try {
    const message = (JSON.parse(text) as { message?: unknown } | null)?.message;
    return typeof message === "string" ? message : text;
  } catch {
    return text;
  }
}
