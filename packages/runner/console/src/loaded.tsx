import type { ComponentChildren } from "preact";
import type { Load } from "./use-admin.js";

/**
 * A loaded value's view: `placeholder` (same size as the data's view) while loading, "not
 * available" with the runner's reason on 404 (the route or its service is off, or the key has no data), the refusal on an error,
 * else `children(data)`.
 */
export function Loaded<T>(props: { load: Load<T>; what: string; placeholder?: ComponentChildren; children: (data: T) => ComponentChildren }) {
  const { load, what } = props;
  switch (load.state) {
    case "loading":
      return <>{props.placeholder ?? <p class="placeholder">Loading {what}…</p>}</>;
    case "absent":
      return (
        <p class="notice absent" data-testid="not-available">
          {what}: not available <span class="muted">— {load.message}</span>
        </p>
      );
    case "error":
      return (
        <p class="notice error" role="alert">
          Could not load {what}: {load.status === 401 ? "the admin token is missing or wrong" : load.message}
        </p>
      );
    case "ok":
      return <>{props.children(load.data)}</>;
  }
}
