import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { adminGet, serverNow } from "./admin-client.js";

/**
 * What a view shows for one GET: loading (nothing yet), the data, absent (404: the route or the
 * service is not there), or an error. A refresh keeps the data shown until the new answer comes,
 * so nothing jumps.
 */
export type Load<T> =
  | { readonly state: "loading" }
  /** `at`: when it was read, on the runner's clock. */
  | { readonly state: "ok"; readonly data: T; readonly at: number }
  | { readonly state: "absent"; readonly message: string }
  | { readonly state: "error"; readonly status: number; readonly message: string };

/**
 * GETs `path` (null: nothing to get) and again every `refreshMs` when given; `reload` gets it now.
 * An answer to a path the view has left is dropped.
 */
export function useAdmin<T>(path: string | null, refreshMs?: number): [Load<T>, () => void] {
  const [load, setLoad] = useState<Load<T>>({ state: "loading" });
  const [tick, setTick] = useState(0);
  const shownPath = useRef<string | null>(null);
  const reload = useCallback(() => setTick((t) => t + 1), []);

  useEffect(() => {
    if (path === null) return;
    if (shownPath.current !== path) setLoad({ state: "loading" });
    shownPath.current = path;
    const abort = new AbortController();
    adminGet<T>(path, abort.signal)
      .then((a) => {
        if (abort.signal.aborted) return;
        if (a.ok) setLoad({ state: "ok", data: a.data, at: serverNow() });
        else if (a.status === 404) setLoad({ state: "absent", message: a.message });
        else setLoad({ state: "error", status: a.status, message: `${a.error}: ${a.message}` });
      })
      .catch(() => undefined);
    return () => abort.abort();
  }, [path, tick]);

  useEffect(() => {
    if (path === null || refreshMs === undefined) return;
    const timer = setInterval(() => {
      if (document.visibilityState === "visible") reload();
    }, refreshMs);
    return () => clearInterval(timer);
  }, [path, refreshMs, reload]);

  return [load, reload];
}
