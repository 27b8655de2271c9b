import { fileURLToPath } from "node:url";
import { defineConfig } from "tsup";

const src = (p: string) => fileURLToPath(new URL(`../../packages/${p}`, import.meta.url));

export default defineConfig({
  entry: ["src/*.ts"],
  format: ["esm"],
  clean: true,
  target: "node20",
  // The msgx packages are bundled from their sources (drivers stay external): the example runs
  // without building the packages first, and holds one copy of each msgx module, even of those it
  // reaches by relative path until the package barrels export them.
  noExternal: [/^@msgx\//],
  esbuildOptions(options) {
    options.alias = {
      "@msgx/core": src("core/src/index.ts"),
      "@msgx/adapters-pg": src("adapters-pg/src/index.ts"),
      "@msgx/adapters-kafka": src("adapters-kafka/src/index.ts"),
      "@msgx/reliable": src("reliable/src/index.ts"),
      "@msgx/adapters-pg/reliable": src("adapters-pg/src/reliable/index.ts"),
      "@msgx/adapters-kafka/reliable": src("adapters-kafka/src/reliable/index.ts"),
    };
  },
});
