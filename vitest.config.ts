import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const src = (p: string) => fileURLToPath(new URL(`./packages/${p}`, import.meta.url));

// Tests run against the TypeScript sources, so `pnpm test` needs no build first.
const alias = {
  "@msgx/adapters-kafka/reliable": src("adapters-kafka/src/reliable/index.ts"),
  "@msgx/adapters-kafka/tasks": src("adapters-kafka/src/tasks/index.ts"),
  "@msgx/adapters-kafka": src("adapters-kafka/src/index.ts"),
  "@msgx/adapters-mysql": src("adapters-mysql/src/index.ts"),
  "@msgx/adapters-pg/reliable": src("adapters-pg/src/reliable/index.ts"),
  "@msgx/adapters-pg/tasks": src("adapters-pg/src/tasks/index.ts"),
  "@msgx/adapters-pg": src("adapters-pg/src/index.ts"),
  "@msgx/core/testing": src("core/src/testing.ts"),
  "@msgx/core/fakes": src("core/src/fakes.ts"),
  "@msgx/core": src("core/src/index.ts"),
  "@msgx/reliable/testing": src("reliable/src/testing.ts"),
  "@msgx/reliable/fakes": src("reliable/src/fakes.ts"),
  "@msgx/reliable": src("reliable/src/index.ts"),
  "@msgx/runner": src("runner/src/index.ts"),
  "@msgx/tasks/testing": src("tasks/src/testing.ts"),
  "@msgx/tasks/fakes": src("tasks/src/fakes.ts"),
  "@msgx/tasks": src("tasks/src/index.ts"),
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
  // Stops the broker to make the delivery-lag alert fire on a real Prometheus.
  "packages/runner/test/ops-prometheus.e2e.spec.ts",
  "packages/adapters-kafka/test/relay-broker-restart.int.spec.ts",
  // Not a shared service, but three brokers' JVMs: alone, they do not slow the suites beside them.
  "packages/adapters-kafka/test/kafka-cluster.int.spec.ts",
  // Owns the three-broker cluster and the PostgreSQL HA pair while it runs.
  "packages/runner/test/failover-battery.e2e.spec.ts",
];
const integration = ["packages/*/src/**/*.int.spec.ts", "packages/*/test/**/*.int.spec.ts", "packages/*/test/**/*.e2e.spec.ts", "examples/*/test/**/*.int.spec.ts", "examples/*/test/**/*.e2e.spec.ts"];
const slow = { testTimeout: 120_000, hookTimeout: 120_000, setupFiles: ["packages/runner/test/kill-children.setup.ts"] };

/** How slow a kind of suite tends to be, slowest 0: end-to-end, property and model, integration, unit. */
const kind = (file: string): number => (/\.e2e\.spec\.ts$/.test(file) ? 0 : /\.(property|model)\.unit\.spec\.ts$/.test(file) ? 1 : /\.int\.spec\.ts$/.test(file) ? 2 : 3);

/**
 * Longest first across the projects of a group, so no long suite starts last and runs alone (vitest's
 * own order runs one project's files after the other's): by the last run's durations where this
 * checkout has them, else — a fresh clone — by the kind of suite.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const last = (f: TestSpecification) => this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`)?.duration;
    return [...files].sort((a, b) => {
      const group = a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder;
      if (group !== 0) return group;
      const [da, db] = [last(a), last(b)];
      return da !== undefined && db !== undefined ? db - da : kind(a.moduleId) - kind(b.moduleId);
    });
  }
}

// Integration suites isolate themselves (a schema, tables, topics and a data directory of their
// own, ports chosen by the OS) and mostly wait on I/O, so four files run at once on two cores,
// unit and integration together (vitest wants one worker count per group); then the exclusive ones.
export default defineConfig({
  resolve: { alias },
  test: {
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
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
          // A guard against a hung test, never a speed assertion: the heaviest property suites take
          // 8 s alone and ran past 60 s beside the integration suites on a loaded 2-CPU CI machine.
          testTimeout: 300_000,
          maxWorkers: 4,
          sequence: { groupOrder: 0 },
        },
      },
    ],
  },
});
