import { decodeMessage, decodeMessageInSlices } from "../../src/codec/xml-codec.js";
import { BackfillSweeper, InboxPoller, Pump, ReplayService, SimulatedCrashMarker, type PipelineStore, type CodecOptions, type ProcessorTable } from "@msgx/core";
import { type PumpFailpoint, type PumpStep } from "@msgx/core/testing";
import { type PumpOptions } from "@msgx/core";
import { InMemoryMailbox, InMemoryPipelineStore, ManualClock, RecordingLogger } from "@msgx/core/testing";

/** What a test message is meant to be, so the model knows how it must end. */
export type MessageKind = "valid" | "poison" | "malformed" | "ignorable" | "unsupported";

export const GAP_GRACE_MS = 5_000;

/** A FLOP ESTT message of the given sequence number (its identity is `AODB|FLOP|ESTT|<seqn>`). */
export function sisXml(kind: MessageKind, seqn: number): string {
  const meta = (type: string, styp: string) =>
    `<META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305020000</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>`;
  switch (kind) {
    case "valid":
    case "poison":
      return `<MSG>${meta("FLOP", "ESTT")}<FLOP><FLID>${900000 + seqn}</FLID><ESTT>05MAR261452</ESTT></FLOP></MSG>`;
    case "malformed":
      return `<MSG>${meta("FLOP", "ESTT")}<FLOP><FLID>1</FLID></FLO`;
    case "ignorable":
      return `<MSG>${meta("LDM", "NONE")}<LDM><TEXT>load</TEXT></LDM></MSG>`;
    case "unsupported":
      return `<MSG>${meta("ZZZZ", "NONE")}<ZZZZ/></MSG>`;
  }
}

/**
 * The system under test, as a crash would leave it: the fakes (mailbox, store) survive a crash;
 * the pump, poller and sweeper are rebuilt from them. Poisoned sequence numbers make the test
 * processor fail until healed.
 */
export class PipelineWorld {
  readonly clock = new ManualClock();
  readonly mailbox = new InMemoryMailbox(this.clock);
  readonly store = new InMemoryPipelineStore(this.clock);
  /** What the pump, poller and sweeper logged. */
  readonly logger = new RecordingLogger();
  readonly poisoned = new Set<number>();
  armedFailpoint: PumpFailpoint | undefined;
  poller!: InboxPoller;
  pump!: Pump;
  sweeper!: BackfillSweeper;
  crashes = 0;
  /** Lets a test put a faulty wrapper around the store the pump and poller see. */
  wrapStore: (store: PipelineStore) => PipelineStore = (s) => s;

  /**
   * @param decodeSlice when given, the pump decodes asynchronously in slices of this many code
   *   units (pausing on a resolved promise between two), as the runner does with large documents.
   */
  constructor(
    readonly maxRun: number,
    readonly decodeSlice?: number,
    /** Pump and codec options over the defaults (type policy, UNSUPPORTED budget, identity); a restart takes changes. */
    public options: { readonly pump?: Partial<PumpOptions>; readonly codec?: Partial<CodecOptions> } = {},
  ) {
    this.restart();
  }

  readonly processors: ProcessorTable = {
    flop: {
      flightsOf: (body) => body.blocks.map((b) => b.flid),
      apply: (_body, ctx) =>
        this.poisoned.has(ctx.meta.seqn)
          ? { type: "failed", errorClass: "CODEC_ERROR", reason: `poison ${ctx.meta.seqn}` }
          : {
              type: "applied",
              flights: [],
              events: [{ target: "KAFKA:msg", partitionKey: String(ctx.meta.seqn), eventType: "UPSERT", stateVersion: 1, payload: { seqn: ctx.meta.seqn }, sourceMsgId: ctx.msgId }],
            },
    },
  };

  /** A crash: every in-process object is gone; the databases keep what they committed. */
  restart(): void {
    const deps = { mailbox: this.mailbox, store: this.wrapStore(this.store), clock: this.clock, logger: this.logger };
    this.poller = new InboxPoller(deps, { batchSize: 4, gapGraceMs: GAP_GRACE_MS, rescanEveryMs: 10_000, rescanWindow: 50 });
    this.pump = new Pump(
      {
        ...deps,
        decode: (raw) =>
          this.decodeSlice === undefined ? decodeMessage(raw, this.options.codec) : decodeMessageInSlices(raw, this.options.codec ?? {}, () => Promise.resolve(), this.decodeSlice),
        processors: this.processors,
        horizon: () => this.poller.horizon,
        failpoint: (name) => {
          if (this.armedFailpoint === name) {
            this.armedFailpoint = undefined;
            throw new SimulatedCrashMarker(name);
          }
        },
      },
      { maxRun: this.maxRun, ...this.options.pump },
    );
    this.sweeper = new BackfillSweeper(deps);
  }

  replayer(): ReplayService {
    return new ReplayService({ store: this.store, clock: this.clock });
  }

  /** Runs `fn`; a simulated crash inside it restarts the world instead of failing the test. */
  async survive<T>(fn: () => Promise<T>): Promise<T | undefined> {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof SimulatedCrashMarker)) throw e;
      this.crashes += 1;
      this.restart();
      return undefined;
    }
  }

  async pumpSteps(n: number): Promise<PumpStep[]> {
    const steps: PumpStep[] = [];
    for (let i = 0; i < n; i++) {
      const s = await this.survive(() => this.pump.step());
      if (s === undefined) break;
      steps.push(s);
      if (s.did !== "processed") break;
    }
    return steps;
  }
}
