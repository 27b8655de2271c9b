import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createPump, ProcStatus, type ProcessorTable } from "@msgx/core";
import { InMemoryMailbox, InMemoryPipelineStore, ManualClock, RecordingLogger } from "@msgx/core/fakes";

const root = fileURLToPath(new URL("../../../../", import.meta.url));

const schdAdd = (seqn: number, flid: number) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305052000</DTTM><TYPE>SCHD</TYPE><STYP>ADD</STYP></META>` +
  `<SCHD><RECS>1</RECS><FLTR><FLID>${flid}</FLID><ALCD>ZH</ALCD><FLNO>ZH9101</FLNO><MVIN>D</MVIN><SODT>05MAR261730</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>738</ACFT></FLTR></SCHD></MSG>`;

const flop = (seqn: number) =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305020000</DTTM><TYPE>FLOP</TYPE><STYP>ESTT</STYP></META>` +
  `<FLOP><FLID>${900000 + seqn}</FLID><ESTT>05MAR261452</ESTT></FLOP></MSG>`;

function parts() {
  const clock = new ManualClock();
  return { clock, mailbox: new InMemoryMailbox(clock), store: new InMemoryPipelineStore(clock) };
}

describe("createPump", () => {
  it("with only a store and a mailbox: decodes with the default codec and applies the default processors", async () => {
    const { mailbox, store } = parts();
    const { intake, pump } = createPump({ store, mailbox });
    await mailbox.append(schdAdd(1, 900310));
    await intake.step();
    const step = await pump.step();
    expect(step.did).toBe("processed");
    expect((await store.get(1))?.status).toBe(ProcStatus.SUCCEEDED);
    // The default processors wrote the flight and its events to the outbox.
    expect(store.tables.flights.get("900310")).toBeDefined();
    expect(store.tables.events.map((e) => e.target)).toContain("KAFKA:msg");
  });

  it("reads the horizon from its own intake: nothing is processed before the intake has polled", async () => {
    const { clock, mailbox, store } = parts();
    const { intake, pump } = createPump({ store, mailbox, clock });
    await mailbox.append(schdAdd(1, 900310));
    expect(intake.horizon).toBe(0);
    expect((await pump.step()).did).toBe("idle");
    await intake.step();
    expect(intake.horizon).toBe(1);
    expect((await pump.step()).did).toBe("processed");
  });

  it("passes the given parts and options through: processors, logger, maxRun", async () => {
    const { clock, mailbox, store } = parts();
    const logger = new RecordingLogger();
    const seen: number[] = [];
    const processors: ProcessorTable = {
      flop: { flightsOf: (body) => body.blocks.map((b) => b.flid), apply: (_b, ctx) => (seen.push(ctx.msgId), { type: "applied", flights: [], events: [] }) },
    };
    const { intake, pump } = createPump({ store, mailbox, clock, logger, processors }, { pump: { maxRun: 1 } });
    await mailbox.append(flop(1));
    await mailbox.append(flop(2));
    await intake.step();
    const first = await pump.step();
    expect(first.did === "processed" && first.records.map((r) => r.msgId)).toEqual([1]);
    expect(seen).toEqual([1]);
    // The store's fault plan makes the next read an outage: the pump pauses, spends nothing, logs through our logger.
    store.faults.failNext("unfinished", 1, "DEPENDENCY_UNAVAILABLE");
    const paused = await pump.step();
    expect(paused.did).toBe("outage");
    expect(logger.lines.some((l) => l.msg === "pump paused: dependency unavailable")).toBe(true);
    expect((await store.get(2))?.attempts).toBe(0);
  });
});

describe("packages/core/README.md 'Composing a pump'", () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.restoreAllMocks();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("runs as it stands and prints what the text says", async () => {
    const doc = readFileSync(join(root, "packages/core/README.md"), "utf8");
    const section = doc.slice(doc.indexOf("## Composing a pump"));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block, "a ts block under 'Composing a pump'").toBeDefined();
    // Vitest resolves the package names to the sources; a temporary file outside the tree needs paths.
    const source = (block as string)
      .replace(/from "@msgx\/core\/fakes"/g, `from ${JSON.stringify(pathToFileURL(join(root, "packages/core/src/fakes.ts")).href)}`)
      .replace(/from "@msgx\/core"/g, `from ${JSON.stringify(pathToFileURL(join(root, "packages/core/src/index.ts")).href)}`);
    const dir = mkdtempSync(join(tmpdir(), "msgx-recipe-"));
    dirs.push(dir);
    const file = join(dir, "recipe.ts");
    writeFileSync(file, source);
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
    await import(pathToFileURL(file).href);
    expect(lines.join("\n").split("\n")).toEqual(["message 1: SUCCEEDED", "topic msg: 1 record(s)"]);
    expect(section).toContain("It prints `message 1: SUCCEEDED` and `topic msg: 1 record(s)`");
  });
});
