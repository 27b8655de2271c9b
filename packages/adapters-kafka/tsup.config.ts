import { defineConfig } from "tsup";

export default defineConfig({
  // The task and reliable-message pieces are subpaths of their own (`./tasks`, `./reliable`), so a
  // flight-only project loads none of their code and needs neither product package.
  entry: { index: "src/index.ts", tasks: "src/tasks/index.ts", reliable: "src/reliable/index.ts" },
  format: ["esm", "cjs"],
  // One chunk per shared module in both formats: the entries share one copy of each class.
  splitting: true,
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
