/**
 * Every data call of the console: a same-origin `/admin` fetch with `Authorization: Bearer <token>`
 * when the operator gave one. The token lives in sessionStorage (gone with the tab, never in the
 * URL); a 401 tells the listeners, which bring the token prompt back. A runner without a token
 * answers without one.
 */

const TOKEN_KEY = "msgx.console.token";

/** An answer: the parsed JSON, or the refusal (`status` 0 when the runner could not be reached). */
export type Answer<T> =
  | { readonly ok: true; readonly data: T }
  | { readonly ok: false; readonly status: number; readonly error: string; readonly message: string; readonly body: unknown };

const unauthorizedListeners = new Set<() => void>();
/** The runner's clock minus this browser's, from the `Date` of the last answer (whole seconds). */
let serverClockOffsetMs = 0;

/**
 * Now on the runner's clock: ages (head age, delivery lag) are the runner's times subtracted from
 * it, so a laptop whose clock is off does not show a stuck pipeline, or hide one.
 */
export function serverNow(): number {
  return Date.now() + serverClockOffsetMs;
}

export function storedToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function storeToken(token: string): void {
  if (token === "") sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** Calls `listener` on every 401; returns the unsubscribe. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => void unauthorizedListeners.delete(listener);
}

export async function adminCall<T>(method: "GET" | "POST", path: string, body?: unknown, signal?: AbortSignal): Promise<Answer<T>> {
  const headers: Record<string, string> = { accept: "application/json" };
  const token = storedToken();
  if (token !== null) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, { method, headers, cache: "no-store", credentials: "omit", ...(body !== undefined ? { body: JSON.stringify(body) } : {}), ...(signal ? { signal } : {}) });
  } catch (e) {
    if (signal?.aborted) throw e;
    return { ok: false, status: 0, error: "unreachable", message: "the runner did not answer", body: undefined };
  }
  const date = Date.parse(res.headers.get("date") ?? "");
  // The header has whole seconds: an offset under a second is rounding, not skew.
  if (Number.isFinite(date)) serverClockOffsetMs = Math.abs(date - Date.now()) < 1_000 ? 0 : date - Date.now();
  const text = await res.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (res.ok) return { ok: true, data: json as T };
  if (res.status === 401) for (const listener of unauthorizedListeners) listener();
  const refusal = (json ?? {}) as { error?: unknown; message?: unknown };
  return {
    ok: false,
    status: res.status,
    error: typeof refusal.error === "string" ? refusal.error : res.statusText || "error",
    message: typeof refusal.message === "string" ? refusal.message : `HTTP ${res.status}`,
    body: json,
  };
}

export const adminGet = <T>(path: string, signal?: AbortSignal) => adminCall<T>("GET", path, undefined, signal);
export const adminPost = <T>(path: string, body: unknown) => adminCall<T>("POST", path, body);

/** A query string of the defined values (`?a=1&b=x`, or "" when none). */
export function query(params: Readonly<Record<string, string | number | undefined | null>>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s === "" ? "" : `?${s}`;
}
