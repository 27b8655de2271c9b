import { defineConfig } from "tsup";

const entry = { index: "src/index.ts", fakes: "src/fakes.ts", testing: "src/testing.ts" };

export default defineConfig({
  entry,
  format: ["esm", "cjs"],
  // One chunk per module shared by the entries, as in @msgx/core: a process that loads two entries
  // holds one copy of each class.
  splitting: true,
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  external: ["vitest", "fast-check", "@msgx/core"],
  // The contract suites need vitest, which is ESM-only: in CommonJS, `testing` is a stub that
  // throws a clear error (src/testing-esm-only.ts). Its types stay those of the ESM entry.
  esbuildOptions(options, { format }) {
    if (format === "cjs") options.entryPoints = { ...entry, testing: "src/testing-esm-only.ts" };
  },
});
