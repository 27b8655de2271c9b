import { decodeMessage } from "../codec/xml-codec.js";
import { defaultProcessors } from "../flight/default-processors.js";
import { InboxPoller, type InboxPollerOptions } from "../intake/inbox-poller.js";
import type { ContentHash } from "../model/content-hash.js";
import type { Mailbox } from "../ports/mailbox.js";
import type { PipelineStore } from "../processing/pipeline-store.js";
import type { ProcessorTable } from "../processing/processor.js";
import { Pump, type PumpDeps, type PumpFailpoint } from "../processing/pump.js";
import type { PumpOptions } from "../processing/pump-options.js";
import { systemClock, type Clock } from "../runtime/clock.js";
import { silentLogger, type Logger } from "../runtime/logger.js";
import { noopTracer, type Tracer } from "../runtime/tracer.js";

/**
 * What an integrator brings to a pump: the two ports, required, and the parts that have a
 * default. Every default is what `msgx run` uses too, except the logger (the runner logs to stdout)
 * and the processors' airport options (the runner reads them from its configuration).
 */
export interface PumpParts {
  /** The processing state: `PgPipelineStore`, or `InMemoryPipelineStore` from `@msgx/core/fakes`. */
  readonly store: PipelineStore;
  /** Where the raw messages arrive: `MysqlMailbox`, `PgMailbox`, or `InMemoryMailbox`. */
  readonly mailbox: Mailbox;
  /** The one source of time of the intake and the pump. Default: `systemClock`. */
  readonly clock?: Clock;
  /** Default: `silentLogger` (nothing is written). */
  readonly logger?: Logger;
  /** Decodes one raw message (see `PumpDeps.decode`). Default: `decodeMessage` with the default codec options. */
  readonly decode?: PumpDeps["decode"];
  /** The processor of each kind. Default: `defaultProcessors()` (every processor msgx has, default options). */
  readonly processors?: ProcessorTable;
  /** Default: core's pure SHA-256 (`sha256Hex`). */
  readonly contentHash?: ContentHash;
  /** Lets the host's other work run (see `PumpDeps.pause`; on Node, `() => new Promise((r) => setImmediate(r))`). Default: none. */
  readonly pause?: PumpDeps["pause"];
  /** Reports an intake span per row and a process span per message. Default: `noopTracer`. */
  readonly tracer?: Tracer;
  /** Named crash points (tests, fault batteries). Default: none. */
  readonly failpoint?: (name: PumpFailpoint) => void;
}

export interface CreatePumpOptions {
  /** Over `DEFAULT_INBOX_POLLER_OPTIONS`. */
  readonly intake?: Partial<InboxPollerOptions>;
  /** Over `DEFAULT_PUMP_OPTIONS` (retry policy, run size, fencing epoch, …). */
  readonly pump?: Partial<PumpOptions>;
}

/** A pump and the intake whose horizon it reads: drive both, each by its own result. */
export interface ComposedPump {
  /** Moves mailbox rows into the store and publishes the safe horizon (`step()` is one poll). */
  readonly intake: InboxPoller;
  /** Processes the head and the run behind it, up to the intake's horizon (`step()` is one run). */
  readonly pump: Pump;
}

/**
 * A pump over `parts.store` and `parts.mailbox`, with the intake it needs: the pump processes no
 * id above the intake's horizon, so one without the other never processes anything. For the whole
 * pipeline (delivery, the backfill sweep, the wake edges) use `PipelineRouter`.
 */
export function createPump(parts: PumpParts, options: CreatePumpOptions = {}): ComposedPump {
  const { store, mailbox } = parts;
  const clock = parts.clock ?? systemClock;
  const logger = parts.logger ?? silentLogger;
  const tracer = parts.tracer ?? noopTracer;
  const intake = new InboxPoller({ store, mailbox, clock, logger, tracer }, options.intake);
  const pump = new Pump(
    {
      store,
      mailbox,
      clock,
      logger,
      tracer,
      decode: parts.decode ?? ((raw) => decodeMessage(raw)),
      processors: parts.processors ?? defaultProcessors(),
      horizon: () => intake.horizon,
      ...(parts.contentHash ? { contentHash: parts.contentHash } : {}),
      ...(parts.pause ? { pause: parts.pause } : {}),
      ...(parts.failpoint ? { failpoint: parts.failpoint } : {}),
    },
    options.pump,
  );
  return { intake, pump };
}
