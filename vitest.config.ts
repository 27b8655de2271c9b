import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (p: string) => fileURLToPath(new URL(`./packages/${p}`, import.meta.url));

// Tests run against the TypeScript sources, so `pnpm test` needs no build first.
const alias = {
  "@msgx/core/testing": src("core/src/testing.ts"),
  "@msgx/core/fakes": src("core/src/fakes.ts"),
  "@msgx/core": src("core/src/index.ts"),
  "@msgx/adapters-pg": src("adapters-pg/src/index.ts"),
  "@msgx/adapters-mysql": src("adapters-mysql/src/index.ts"),
  "@msgx/adapters-kafka": src("adapters-kafka/src/index.ts"),
  "@msgx/runner": src("runner/src/index.ts"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: { name: "unit", include: ["packages/*/src/**/*.unit.spec.ts", "packages/*/test/**/*.unit.spec.ts", "examples/*/test/**/*.unit.spec.ts"], testTimeout: 60_000 },
      },
      {
        resolve: { alias },
        test: {
          name: "int",
          include: ["packages/*/src/**/*.int.spec.ts", "packages/*/test/**/*.int.spec.ts", "packages/*/test/**/*.e2e.spec.ts", "examples/*/test/**/*.int.spec.ts", "examples/*/test/**/*.e2e.spec.ts"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
