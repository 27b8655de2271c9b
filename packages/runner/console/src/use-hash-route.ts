import { useEffect, useState } from "preact/hooks";

/** The route in the URL's hash, `#/flights/900101` → `["flights", "900101"]` (decoded); `[]` for none. */
export function parseHash(hash: string): string[] {
  return hash
    .replace(/^#\/?/, "")
    .split("/")
    .filter((s) => s !== "")
    .map((s) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    });
}

/** A hash link to a route: `href("flights", flid)` → `#/flights/<flid, encoded>`. */
export const href = (...segments: readonly (string | number)[]): string => `#/${segments.map((s) => encodeURIComponent(String(s))).join("/")}`;

export function useHashRoute(): string[] {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(location.hash));
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
