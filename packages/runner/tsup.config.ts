import { defineConfig } from "tsup";

export default defineConfig({
  entry: { index: "src/index.ts", cli: "src/cli.ts" },
  format: ["esm", "cjs"],
  // The library is ESM and CommonJS; the `msgx` binary (bin → dist/cli.js) is ESM only, so the
  // CommonJS build and the declarations cover the library entry alone.
  esbuildOptions(options, { format }) {
    if (format === "cjs") options.entryPoints = { index: "src/index.ts" };
  },
  dts: { entry: { index: "src/index.ts" } },
  // import.meta.url in the CommonJS build (the embedded store resolves PGlite from its own module).
  shims: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
