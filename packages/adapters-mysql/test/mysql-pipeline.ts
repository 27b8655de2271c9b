import { BackfillSweeper, decodeMessage, InboxPoller, Pump, type LogFields, type Logger, type Mailbox } from "@msgx/core";
import { type PumpFailpoint, type PumpStep } from "@msgx/core/testing";
import { InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";

/** A logger that keeps every line, so a test can show what the pipeline said. */
export function recordingLogger(): Logger & { readonly lines: { level: string; msg: string; fields?: LogFields }[] } {
  const lines: { level: string; msg: string; fields?: LogFields }[] = [];
  const at = (level: string) => (msg: string, fields?: LogFields) => void lines.push({ level, msg, ...(fields ? { fields } : {}) });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/**
 * The core's intake and pump on a real mailbox, with the in-memory pipeline store and a manual
 * clock: the adapter is the only real part.
 */
export function mysqlPipeline(
  mailbox: Mailbox,
  options: {
    readonly gapGraceMs?: number;
    readonly batchSize?: number;
    readonly maxRun?: number;
    readonly failpoint?: (name: PumpFailpoint) => void;
  } = {},
) {
  const clock = new ManualClock();
  const logger = recordingLogger();
  const store = new InMemoryPipelineStore(clock);
  const poller = new InboxPoller(
    { mailbox, store, clock, logger },
    { gapGraceMs: options.gapGraceMs ?? 5_000, batchSize: options.batchSize ?? 50, rescanEveryMs: 60 * 60_000 },
  );
  const pump = new Pump(
    {
    store,
    mailbox,
    clock,
    logger,
    decode: (raw) => decodeMessage(raw),
    processors: {},
    horizon: () => poller.horizon,
    ...(options.failpoint ? { failpoint: options.failpoint } : {}),
    },
    options.maxRun === undefined ? {} : { maxRun: options.maxRun },
  );
  const sweeper = new BackfillSweeper({ store, mailbox, clock, logger });
  return {
    clock,
    logger,
    store,
    poller,
    pump,
    sweeper,
    /** Steps the pump until it stops making progress; returns the last step. */
    async drain(maxSteps = 1_000): Promise<PumpStep> {
      for (let i = 0; i < maxSteps; i++) {
        const step = await pump.step();
        if (step.did !== "processed") return step;
      }
      throw new Error("pump did not settle");
    },
    /** Terminal transitions in commit order. */
    processed: () => store.tables.terminalLog.map((e) => e.msgId),
  };
}
