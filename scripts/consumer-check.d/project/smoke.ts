/**
 * The consumer smoke, as an integrator would write it against the published packages. The consumer
 * check copies this one file to `smoke.mts` and `smoke.cts`, compiles both with `tsc` (module
 * node16) and runs the ESM and the CJS output with plain `node`: the same code exercises the
 * `import` and the `require` side of every exports map.
 *
 * Every check prints `ok - <name>` or `not ok - <name>: <why>`; the exit code is the count of
 * failures. A failing check does not stop the others, so one run shows every packaging problem.
 */
import { Breaker, decodeMessage, defaultProcessors, InboxPoller, isMsgxError, isOutage, MsgxError, Pump } from "@msgx/core";
import type * as Fakes from "@msgx/core/fakes";
import { createRequire } from "node:module";
import { join } from "node:path";

/** True in the CJS build of this file (`require` and `module` are real there, absent in ESM). */
const cjs = typeof require === "function" && typeof module === "object";
const format = cjs ? "cjs" : "esm";
let failures = 0;

function report(name: string, problem: string | null): void {
  if (problem === null) console.log(`ok - ${format}: ${name}`);
  else {
    failures += 1;
    console.log(`not ok - ${format}: ${name}: ${problem}`);
  }
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split("\n")[0] ?? "";

/** Loads a module the way this format does: `require` in CJS, `import()` in ESM. */
async function load(id: string): Promise<Record<string, unknown>> {
  return cjs ? (require(id) as Record<string, unknown>) : ((await import(id)) as Record<string, unknown>);
}

/** A SIS schedule download of one flight: what the mailbox holds as raw text. */
const SCHD = [
  "<MSG><META><SNDR>AODB</SNDR><SEQN>480211</SEQN><DTTM>20260305020000</DTTM><TYPE>SCHD</TYPE><STYP>DNLD</STYP></META>",
  "<SCHD><RECS>1</RECS><FLTR><FLID>900101</FLID><ALCD>CZ</ALCD><FLNO>CZ3101</FLNO><MVIN>D</MVIN>",
  "<SODT>05MAR260800</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>333</ACFT><STND>A112</STND></FLTR></SCHD></MSG>",
].join("");

function checkDecode(): void {
  const result = decodeMessage(SCHD);
  const problem = !result.ok
    ? `${result.errorClass}: ${result.reason}`
    : result.message.body.kind !== "snapshot" || result.message.meta.seqn !== 480211
      ? `decoded as ${result.message.body.kind}, seqn ${result.message.meta.seqn}`
      : null;
  report("decodeMessage decodes a SIS SCHD DNLD", problem);
}

/**
 * The fakes from `@msgx/core/fakes`. Should that fail, the ways an integrator had before are
 * tried (`@msgx/core/testing` by this format, then by `import()`), so the pump and outage checks
 * still run and show what a consumer of such a packaging would see.
 */
async function loadFakes(): Promise<typeof Fakes | null> {
  const tries = ["@msgx/core/fakes", "@msgx/core/testing"];
  for (const id of tries) {
    try {
      const fakes = (await load(id)) as unknown as typeof Fakes;
      if (id === tries[0]) report("@msgx/core/fakes loads", null);
      return fakes;
    } catch (e) {
      report(`${id} loads`, message(e));
    }
  }
  if (!cjs) return null;
  try {
    return (await import("@msgx/core/testing")) as unknown as typeof Fakes;
  } catch (e) {
    report("import(@msgx/core/testing) from CJS loads", message(e));
    return null;
  }
}

async function checkPump(fakes: typeof Fakes): Promise<void> {
  const clock = new fakes.ManualClock();
  const logger = new fakes.RecordingLogger();
  const mailbox = new fakes.InMemoryMailbox(clock);
  const store = new fakes.InMemoryPipelineStore(clock);
  const poller = new InboxPoller({ mailbox, store, clock, logger });
  const pump = new Pump({ store, mailbox, clock, logger, decode: (raw) => decodeMessage(raw), processors: defaultProcessors(), horizon: () => poller.horizon });

  mailbox.insert(SCHD);
  await poller.step();
  try {
    const step = await pump.step();
    const statuses = step.did === "processed" ? step.records.map((r) => r.status).join(",") : step.did;
    const stored = [...store.tables.flights.keys()].join(",");
    report("a pump on the fakes applies a message", statuses === "SUCCEEDED" && stored === "900101" ? null : `step ${statuses}, flights [${stored}]`);
  } catch (e) {
    report("a pump on the fakes applies a message", `step threw ${message(e)}`);
  }

  // An outage: the store is down. The fake's error must be core's MsgxError (one class per format),
  // so `isOutage` holds and the pump pauses instead of throwing.
  mailbox.insert(SCHD.replace("480211", "480212"));
  await poller.step();
  store.faults.setDown(true);
  try {
    await store.head();
    report("a fake store's outage error is an outage", "store.head() did not fail");
  } catch (e) {
    const same = e instanceof MsgxError && isMsgxError(e);
    report("a fake store's outage error is an outage", same && isOutage(e) ? null : `instanceof MsgxError ${same}, isOutage ${isOutage(e)}`);
  }
  try {
    const step = await pump.step();
    report("the pump pauses on an outage", step.did === "outage" && Breaker.isOpen(pump.breaker) ? null : `step ${step.did}, breaker open ${Breaker.isOpen(pump.breaker)}`);
  } catch (e) {
    report("the pump pauses on an outage", `pump.step() threw: ${message(e)}`);
  }
}

/** `@msgx/core/testing` is ESM-only: CJS gets a clear error naming `import()`, ESM gets the suites. */
async function checkTesting(): Promise<void> {
  if (cjs) {
    try {
      require("@msgx/core/testing");
      report("require(@msgx/core/testing) throws a clear ESM-only error", "it loaded");
    } catch (e) {
      const text = message(e);
      report("require(@msgx/core/testing) throws a clear ESM-only error", text.includes("import(") && !text.includes("Vitest cannot be imported") ? null : text);
    }
    return;
  }
  try {
    const testing = await load("@msgx/core/testing");
    report("import(@msgx/core/testing) gives the contract suites", typeof testing["describeMailboxContract"] === "function" ? null : "no describeMailboxContract");
  } catch (e) {
    report("import(@msgx/core/testing) gives the contract suites", message(e));
  }
}

/** The event payload schemas each package publishes (docs/events.md), loaded through its exports map. */
const SCHEMAS = [
  "core/schemas/flight",
  "core/schemas/reference",
  "tasks/schemas/task-event",
  "tasks/schemas/task-callback",
  "reliable/schemas/reliable-message",
  "reliable/schemas/reliable-message-dead-letter",
];

function checkSchemas(): void {
  // JSON loads with require in both formats (ESM's JSON import needs an attribute node16 cannot type).
  const load = cjs ? require : createRequire(join(process.cwd(), "consumer.js"));
  const problems: string[] = [];
  for (const name of SCHEMAS) {
    try {
      const schema = load(`@msgx/${name}.schema.json`) as { $schema?: unknown };
      if (typeof schema.$schema !== "string") problems.push(`${name}: no $schema`);
    } catch (e) {
      problems.push(`${name}: ${message(e)}`);
    }
  }
  report("@msgx/<package>/schemas/<name>.schema.json loads for every event", problems.length === 0 ? null : `${problems.length} of ${SCHEMAS.length} fail, first ${problems[0]}`);
}

/** Each package's main entry and what it must export. */
const EXPORTS: Record<string, readonly string[]> = {
  "@msgx/tasks": ["TaskService", "DispatchJob", "TaskEventConsumer"],
  "@msgx/tasks/fakes": ["InMemoryTaskStore", "InMemoryTaskConsumeLogStore"],
  "@msgx/reliable": ["ReliableMessageService", "CheckBackJob", "ReliableMessageConsumer"],
  "@msgx/reliable/fakes": ["InMemoryReliableMessageStore", "InMemoryConsumeLog"],
  "@msgx/adapters-pg": ["createPgStores", "createPgliteStores", "PgPipelineStore", "PgMailbox"],
  "@msgx/adapters-pg/tasks": ["PgTaskStore", "PgTaskConsumeLogStore"],
  "@msgx/adapters-pg/reliable": ["PgReliableMessageStore", "PgConsumeLog"],
  "@msgx/adapters-mysql": ["MysqlMailbox", "ShadowMailbox"],
  "@msgx/adapters-kafka": ["KafkaDeliveryPort", "assertSafeProducerConfig", "ensureTopics"],
  "@msgx/adapters-kafka/tasks": ["runTaskEventConsumer", "runTaskCallbackConsumer", "ensureTaskTopics"],
  "@msgx/adapters-kafka/reliable": ["ReliableMessageKafkaConsumer", "ensureQueueTopics"],
  "@msgx/runner": ["createExchange", "loadConfig"],
};

async function checkPackages(): Promise<void> {
  for (const [id, names] of Object.entries(EXPORTS)) {
    try {
      const m = await load(id);
      const missing = names.filter((n) => typeof m[n] !== "function");
      report(`${id} loads with its exports`, missing.length === 0 ? null : `missing ${missing.join(", ")}`);
    } catch (e) {
      report(`${id} loads with its exports`, message(e));
    }
  }
}

async function main(): Promise<void> {
  checkDecode();
  const fakes = await loadFakes();
  if (fakes) await checkPump(fakes);
  else report("a pump on the fakes", "no fakes could be loaded");
  await checkTesting();
  checkSchemas();
  await checkPackages();
  process.exitCode = failures;
}

void main();
