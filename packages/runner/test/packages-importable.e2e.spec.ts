import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "msgx-import-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What each package must export, checked through its `exports` map from plain Node. */
const expected: Record<string, string[]> = {
  core: ["Pump", "decodeMessage", "MsgxError", "defaultProcessors", "MsgDispatcher"],
  tasks: ["TaskService", "DispatchJob", "TaskEventConsumer"],
  reliable: ["ReliableMessageService", "CheckBackJob", "ReliableMessageConsumer"],
  "adapters-pg": ["createPgStores", "createPgliteStores", "PgPipelineStore", "PgMailbox"],
  "adapters-pg/tasks": ["PgTaskStore", "PgTaskConsumeLogStore"],
  "adapters-pg/reliable": ["PgReliableMessageStore", "PgConsumeLog"],
  "adapters-mysql": ["MysqlMailbox", "ShadowMailbox"],
  "adapters-kafka": ["KafkaDeliveryPort", "assertSafeProducerConfig", "ensureTopics"],
  "adapters-kafka/tasks": ["runTaskEventConsumer", "runTaskCallbackConsumer", "ensureTaskTopics"],
  "adapters-kafka/reliable": ["ReliableMessageKafkaConsumer", "ensureQueueTopics"],
  runner: ["createExchange", "loadConfig"],
};

// The packages as an installer would see them: node_modules/@msgx/<name> → the built package.
mkdirSync(join(dir, "node_modules", "@msgx"), { recursive: true });
for (const name of Object.keys(expected).filter((n) => !n.includes("/"))) symlinkSync(join(root, "packages", name), join(dir, "node_modules", "@msgx", name), "dir");

const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: dir, encoding: "utf8" });

describe("built packages import from ESM and CJS through their exports maps", () => {
  for (const [name, symbols] of Object.entries(expected)) {
    it(`@msgx/${name}`, () => {
      const list = JSON.stringify(symbols);
      const esm = node(["--input-type=module", "-e", `const m = await import("@msgx/${name}"); console.log(JSON.stringify(${list}.filter((s) => typeof m[s] !== "function")))`]);
      const cjs = node(["-e", `const m = require("@msgx/${name}"); console.log(JSON.stringify(${list}.filter((s) => typeof m[s] !== "function")))`]);
      expect(JSON.parse(esm)).toEqual([]);
      expect(JSON.parse(cjs)).toEqual([]);
    });
  }

  it("the msgx binary answers --help with every command", () => {
    const help = node([join(root, "packages/runner/dist/cli.js"), "--help"]);
    for (const cmd of ["run", "migrate", "status", "messages", "dead-letters", "replay", "flights", "snapshots", "demo", "reliable", "request"]) expect(help).toContain(cmd);
  });
});
