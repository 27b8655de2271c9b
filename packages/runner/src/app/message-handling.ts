import { createHash } from "node:crypto";
import {
  decodeMessageInSlices,
  defaultProcessors,
  MsgxError,
  typePolicyProblems,
  type CodecOptions,
  type ContentHash,
  type DecodeResult,
  type IdentityOptions,
  type ProcessorTable,
  type RetryPolicy,
  type UnsupportedPolicy,
} from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";

/** How the pump reads and judges messages, all from the configuration. */
export interface MessageHandling {
  /** The decoder's options: caps, type policy, reference types, tolerances. */
  readonly codec: CodecOptions;
  readonly processors: ProcessorTable;
  /** Retries of a message's own faults (SPEC §2.1). */
  readonly policy: RetryPolicy;
  /** The short budget (or `skip` mode) of UNSUPPORTED messages. */
  readonly unsupported: UnsupportedPolicy;
  readonly identity: IdentityOptions;
  /** The SHA-256 kept with each identity binding: `node:crypto`'s, native and fast on large documents. */
  readonly contentHash: ContentHash;
  /**
   * Decodes one raw message with `codec`. A document of megabytes is parsed in slices with the
   * event loop let in between, so the ingress, /healthz and the relay keep answering while it is
   * read (docs/reliability.md). The pump and the replay preflight both read messages with it.
   */
  readonly decode: (raw: string) => Promise<DecodeResult>;
  /** One turn of the event loop (`PumpDeps.pause`): a speculation lets the commit it is behind leave first. */
  readonly pause: () => Promise<void>;
}

const nodeSha256: ContentHash = (raw) => createHash("sha256").update(raw, "utf8").digest("hex");

/**
 * Builds the codec options, processors and budgets the pump runs with, and refuses (a CONFIG
 * error, exit code 2) a type policy that processes a TYPE or FLOP subtype msgx has no decoder or
 * processor for (`SCHS=process` while no seasonal processor exists, for one): that is a setting
 * to fix before start, not a stream of FAILED messages.
 */
export function messageHandling(config: MsgxConfig): MessageHandling {
  const p = config.pipeline;
  const codec: CodecOptions = {
    limits: config.codec.limits,
    typePolicy: config.types.policy,
    referenceTypes: config.codec.referenceTypes,
    numericTimeTolerance: config.codec.numericTimeTolerance,
  };
  const airport = { dayStartOffsetMinutes: config.airport.dayStartOffsetMinutes, airportUtcOffsetMinutes: config.airport.utcOffsetMinutes };
  const processors: ProcessorTable = defaultProcessors({ ...airport, ...config.flight });
  const problems = typePolicyProblems(codec.typePolicy, codec.referenceTypes, processors);
  if (problems.length > 0) {
    throw new MsgxError("CONFIG", `invalid configuration:\n${problems.map((m) => `  types.policy: ${m}`).join("\n")}`);
  }
  return {
    codec,
    processors,
    policy: { maxAttempts: p.maxAttempts, initialBackoffMs: p.backoffInitialMs, backoffMultiplier: p.backoffMultiplier, maxBackoffMs: p.backoffMaxMs, headDeadlineMs: p.headDeadlineMs },
    unsupported: { mode: config.types.unsupported.mode, maxAttempts: config.types.unsupported.attempts, headDeadlineMs: config.types.unsupported.headMs },
    identity: { includeDayBoundary: config.identity.includeDayBoundary, includeContent: config.identity.includeContent, onContentDiffers: config.identity.onContentDiffers, window: config.identity.window },
    contentHash: nodeSha256,
    decode: (raw) => decodeMessageInSlices(raw, codec, yieldToEventLoop),
    pause: yieldToEventLoop,
  };
}

/** Resolves after the event loop has run pending I/O callbacks and timers. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
