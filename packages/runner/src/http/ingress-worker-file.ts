import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The ingress thread's entry file, resolved as `defaultConsoleDir` resolves the console: beside
 * this module (the package's `dist`, or a benchmark's bundle directory, where `bench/run.mjs`
 * bundles it), else — when the runner runs from its TypeScript sources (vitest) — the package's
 * `dist` if a build made one. Undefined when there is none: the ingress then stays on the main
 * thread, and the runner logs why.
 */
export function ingressWorkerFile(): URL | undefined {
  const cjs = import.meta.url.endsWith(".cjs");
  const names = cjs ? ["ingress-worker.cjs", "ingress-worker.js"] : ["ingress-worker.js", "ingress-worker.cjs"];
  const beside = names.map((n) => new URL(`./${n}`, import.meta.url));
  const dist = names.map((n) => new URL(`../../dist/${n}`, import.meta.url));
  // From the sources, `./ingress-worker.js` would name the TypeScript entry's sibling: never there.
  return [...beside, ...dist].find((u) => existsSync(fileURLToPath(u)));
}
