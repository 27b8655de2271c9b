/**
 * The reliable-message service's world on the embedded default, for a describe block: the built
 * `msgx run` with nothing but a data directory (PGlite state, topics as JSON-lines files under
 * `<data-dir>/events/`), the producer's checker, and the hooks that start and stop them. Each
 * call is a runner of its own, so a block can set `reliable` options (a topic prefix) that the
 * others' flows do not expect.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { spawnRunner, stopRunner, type RunnerProcess } from "../runner-process.js";
import * as flows from "./rm-flows.js";
import { startChecker, type Checker, type Consumer } from "./rm-processes.js";

/**
 * Registers the block's hooks (call it inside a `describe`); `reliable` is merged over
 * `rmConfig`'s reliable section. Returns the world the flows take.
 */
export function embeddedRmWorld(suite: string, tag: string, reliable: Record<string, unknown> = {}): () => flows.RmWorld {
  const dir = mkdtempSync(join(tmpdir(), "msgx-rm-embedded-"));
  const dataDir = join(dir, "data");
  let runner: RunnerProcess | undefined;
  let checker: Checker | undefined;
  const consumers: Consumer[] = [];
  const q = flows.rmQueues(tag);

  beforeAll(async () => {
    checker = await startChecker();
    const config = join(dir, "msgx.json");
    const base = flows.rmConfig(q, checker);
    writeFileSync(config, JSON.stringify({ ...base, reliable: { ...(base["reliable"] as object), ...reliable } }));
    runner = await spawnRunner(["-c", config, "--data-dir", dataDir]);
  }, 120_000);
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop()));
  });
  afterAll(async () => {
    await stopRunner(runner, suite);
    await checker?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  return () => ({
    url: runner!.url,
    checker: checker!,
    q,
    consumers,
    source: (topic) => ({ jsonl: join(dataDir, "events", `${topic}.jsonl`) }),
  });
}
