import { useEffect, useRef } from "preact/hooks";

/** Below this width the list and the detail are stacked (console.css), so an opened detail starts below the whole list. */
const STACKED = "(max-width: 900px)";

/**
 * A ref for the detail of what `key` selects: on a stacked (narrow) layout, a new selection
 * scrolls it into view, so a tap on a row shows what it opened instead of the same list.
 */
export function useReveal<T extends HTMLElement>(key: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (key !== undefined && matchMedia(STACKED).matches) ref.current?.scrollIntoView({ block: "start" });
  }, [key]);
  return ref;
}
