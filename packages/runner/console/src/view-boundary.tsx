import type { ComponentChildren } from "preact";
import { useErrorBoundary } from "preact/hooks";

/**
 * Keeps a view's fault to the view: an answer of an unexpected shape shows what failed, and the
 * nav and the other views go on working.
 */
export function ViewBoundary(props: { children: ComponentChildren }) {
  const [error, reset] = useErrorBoundary();
  if (error === undefined) return <>{props.children}</>;
  return (
    <div class="notice error" role="alert">
      <p>This view failed to show the runner's answer: {error instanceof Error ? error.message : String(error)}</p>
      <button type="button" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
