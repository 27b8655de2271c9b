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

/**
 * Suites that stop and start a shared service (PostgreSQL, MariaDB, Kafka): they run one at a time,
 * after every other integration suite has finished, since a stopped broker or database would fail
 * whatever else uses it at that moment.
 */
const exclusive = [
  "packages/runner/test/fault-battery.e2e.spec.ts",
  "packages/runner/test/fault-battery-hostile.e2e.spec.ts",
  "packages/runner/test/reliable-service-broker-outage.e2e.spec.ts",
  "packages/adapters-kafka/test/relay-broker-restart.int.spec.ts",
];
const integration = ["packages/*/src/**/*.int.spec.ts", "packages/*/test/**/*.int.spec.ts", "packages/*/test/**/*.e2e.spec.ts", "examples/*/test/**/*.int.spec.ts", "examples/*/test/**/*.e2e.spec.ts"];
const slow = { testTimeout: 120_000, hookTimeout: 120_000 };

// Integration suites isolate themselves (a schema, tables, topics and a data directory of their
// own, ports chosen by the OS) and mostly wait on I/O, so four files run at once on two cores,
// unit and integration together (vitest wants one worker count per group); then the exclusive ones.
export default defineConfig({
  resolve: { alias },
  test: {
    maxWorkers: 4,
    projects: [
      {
        resolve: { alias },
        test: { name: "int", include: integration, exclude: exclusive, ...slow, maxWorkers: 4, sequence: { groupOrder: 0 } },
      },
      {
        resolve: { alias },
        test: { name: "exclusive", include: exclusive, ...slow, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["packages/*/src/**/*.unit.spec.ts", "packages/*/test/**/*.unit.spec.ts", "examples/*/test/**/*.unit.spec.ts"],
          testTimeout: 60_000,
          maxWorkers: 4,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
