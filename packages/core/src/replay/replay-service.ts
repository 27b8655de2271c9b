import type { DecodeResult } from "../codec/decode-result.js";
import { REPLAYABLE_CLASSES, type ErrorClass } from "../errors/error-class.js";
import { sha256Hex, type ContentHash } from "../model/content-hash.js";
import { DEFAULT_IDENTITY_OPTIONS, type IdentityOptions } from "../model/identity.js";
import { ProcStatus, type ProcRecord } from "../model/proc-record.js";
import type { Mailbox } from "../ports/mailbox.js";
import type { Clock } from "../runtime/clock.js";
import type { PipelineStore, PipelineTx } from "../processing/pipeline-store.js";
import { prepareDecodedRun } from "../processing/prepare-run.js";
import { decodeRaws } from "../processing/decode-raws.js";
import { evolveProc } from "../processing/proc-machine.js";
import type { ProcessorTable } from "../processing/processor.js";
import { DEFAULT_RETRY_POLICY, DEFAULT_UNSUPPORTED_POLICY, type RetryPolicy, type UnsupportedPolicy } from "../runtime/retry-policy.js";
import { ReplayConflictError, type VersionMismatch } from "./replay-conflict.js";
import { simulateReplay, type KeyChange, type ReplayOutcome } from "./replay-simulation.js";
import { parseVersionKey } from "./version-key.js";

/** Which messages an operator asks to replay: by class, by ids, or both (ids within classes). */
export interface ReplaySelection {
  readonly errorClasses?: readonly ErrorClass[];
  readonly msgIds?: readonly number[];
  readonly limit?: number;
}

/** One record as replay sees it. */
export interface ReplayPreview {
  readonly msgId: number;
  readonly status: ProcRecord["status"];
  readonly errorClass: ErrorClass | null;
  readonly reason: string | null;
  readonly eligible: boolean;
  /** Why it is not eligible. */
  readonly refusal?: string;
  /** Eligible, with a preflight: how the message would end if processed now. */
  readonly outcome?: ReplayOutcome;
  /** Eligible, with a preflight: what applying it now would change (empty when it would fail again or change nothing). */
  readonly changes?: readonly KeyChange[];
}

/** A dry run: the preview per record and the version guard to send back with the apply. */
export interface ReplayPreflight {
  readonly preview: readonly ReplayPreview[];
  /** Every key the eligible messages would change, with its version now (null: not stored); `{}` without a preflight. */
  readonly expect: Readonly<Record<string, number | null>>;
}

/** How the apply is guarded. */
export interface ReplayOptions {
  /**
   * The preflight's `expect`: inside the replay's transaction every key's current version must
   * equal it, else `ReplayConflictError` and nothing is written. Absent: no guard.
   */
  readonly expect?: Readonly<Record<string, number | null>>;
}

/**
 * What the preflight reads and judges messages with: the same mailbox, decoder, processors and
 * budgets the pump runs with (the runner passes its pump's), so the dry run decides as the pump will.
 */
export interface ReplayPreflightDeps {
  readonly mailbox: Pick<Mailbox, "readRaw">;
  readonly decode: (raw: string) => DecodeResult | Promise<DecodeResult>;
  readonly processors: ProcessorTable;
  readonly identity?: IdentityOptions;
  readonly policy?: RetryPolicy;
  readonly unsupported?: UnsupportedPolicy;
  /** The broker's record limit (`RunContext.maxRecordBytes`); 0 or absent: unchecked. */
  readonly maxRecordBytes?: number;
  readonly contentHash?: ContentHash;
}

export interface ReplayServiceDeps {
  readonly store: PipelineStore;
  readonly clock: Clock;
  /** Absent: the preview says only whether each record is eligible (no outcome, no changes, empty `expect`). */
  readonly preflight?: ReplayPreflightDeps;
}

export interface ReplayResult {
  readonly replayed: readonly number[];
  readonly refused: readonly ReplayPreview[];
}

/** Whether a record may go back to PENDING (SPEC §2.7), and why not. */
export function replayEligibility(r: ProcRecord): { eligible: boolean; refusal?: string } {
  if (r.status !== ProcStatus.FAILED && r.status !== ProcStatus.DEAD) {
    return { eligible: false, refusal: `status ${r.status} is not FAILED or DEAD` };
  }
  if (r.errorClass === null || !REPLAYABLE_CLASSES.has(r.errorClass)) {
    return { eligible: false, refusal: `class ${r.errorClass ?? "none"} is never replayed` };
  }
  return { eligible: true };
}

/**
 * Replay (SPEC §2.7): moves CODEC_ERROR / UNSUPPORTED / INFRA / EXHAUSTED messages from
 * FAILED/DEAD back to PENDING with attempts reset, identity and error history kept, and an audit
 * row per call. A replayed message becomes the head again: replay does not restore the order it
 * had with messages already processed after it, which is why every call is audited, `preflight`
 * shows what each message would change now, and `replay` can be guarded by the versions the
 * preflight saw. Run it where the pump is serialized with it (the runner does).
 */
export class ReplayService {
  constructor(private readonly deps: ReplayServiceDeps) {}

  async preview(selection: ReplaySelection): Promise<readonly ReplayPreview[]> {
    return (await this.preflight(selection)).preview;
  }

  /**
   * The dry run: eligibility per record and, given preflight deps, what each eligible message
   * would do if processed now (decided by `decideRun` against the stored state, in a
   * transaction that writes nothing), with the `expect` guard covering every key it would change.
   */
  async preflight(selection: ReplaySelection): Promise<ReplayPreflight> {
    const records = await this.#selected(selection);
    const base = records.map(eligibilityPreview);
    const deps = this.deps.preflight;
    const eligible = records.filter((r) => replayEligibility(r).eligible);
    if (deps === undefined || eligible.length === 0) return { preview: base, expect: {} };
    const simulation = await this.#simulate(deps, eligible);
    const preview = base.map((p) => {
      const s = simulation.messages.get(p.msgId);
      return s === undefined ? p : { ...p, outcome: s.outcome, changes: s.changes };
    });
    return { preview, expect: simulation.expect };
  }

  async replay(selection: ReplaySelection, operator: string, options: ReplayOptions = {}): Promise<ReplayResult> {
    // Eligibility only: the guard, not a second dry run, is what protects the apply.
    const preview = (await this.#selected(selection)).map(eligibilityPreview);
    const ids = preview.filter((p) => p.eligible).map((p) => p.msgId);
    const now = this.deps.clock.now();
    const { expect } = options;
    const replayed = await this.deps.store.transaction(async (tx) => {
      if (expect !== undefined) {
        const mismatches = await versionMismatches(tx, expect);
        if (mismatches.length > 0) throw new ReplayConflictError(mismatches);
      }
      // Re-check inside the transaction: a record may have moved since the preview.
      const current = (await tx.loadRecords(ids)).filter((r) => replayEligibility(r).eligible);
      const records = current.map((r) => evolveProc(r, { type: "replayed" }, { now }, DEFAULT_RETRY_POLICY));
      await tx.applyRun({ records, bindings: [], flights: [], events: [], backfill: [] });
      await tx.appendAudit({
        at: now,
        operator,
        action: "replay",
        msgIds: records.map((r) => r.msgId),
        detail: JSON.stringify({ operator, selection, refused: preview.filter((p) => !p.eligible).map((p) => p.msgId), ...(expect !== undefined ? { expect } : {}) }),
      });
      return records.map((r) => r.msgId);
    });
    return { replayed, refused: preview.filter((p) => !p.eligible) };
  }

  async #selected(selection: ReplaySelection): Promise<readonly ProcRecord[]> {
    const records = await this.deps.store.list({
      statuses: [ProcStatus.FAILED, ProcStatus.DEAD],
      ...(selection.errorClasses ? { errorClasses: selection.errorClasses } : {}),
      ...(selection.msgIds ? { msgIds: selection.msgIds } : {}),
      ...(selection.limit !== undefined ? { limit: selection.limit } : {}),
    });
    const byId = new Map(records.map((r) => [r.msgId, r]));
    // Asked-for ids that are not FAILED/DEAD still get a line saying why they were refused.
    const missing = (selection.msgIds ?? []).filter((id) => !byId.has(id));
    const others = missing.length ? await this.deps.store.list({ msgIds: missing }) : [];
    return [...records, ...others].sort((a, b) => a.msgId - b.msgId);
  }

  /** Reads and decodes the messages as the pump does, loads the state it would load, and decides without writing. */
  async #simulate(deps: ReplayPreflightDeps, eligible: readonly ProcRecord[]) {
    const now = this.deps.clock.now();
    const policy = deps.policy ?? DEFAULT_RETRY_POLICY;
    const identity = deps.identity ?? DEFAULT_IDENTITY_OPTIONS;
    // As the replay leaves them: PENDING, attempts reset, identity and history kept.
    const pending = eligible.map((r) => evolveProc(r, { type: "replayed" }, { now }, DEFAULT_RETRY_POLICY));
    const raws = await deps.mailbox.readRaw(pending.map((r) => r.msgId));
    const { decoded, hashes } = await decodeRaws(pending, raws, deps.decode, deps.contentHash ?? sha256Hex);
    const run = prepareDecodedRun(pending, decoded, deps.processors, identity, hashes);
    const loaded = await this.deps.store.transaction(async (tx) => {
      const [identityOwners, flights, requests, references] = await Promise.all([
        tx.identityOwners(run.identityKeys),
        tx.loadFlights(run.flightIds),
        run.needsRequests ? tx.openRequests() : [],
        run.referenceTypes ? tx.loadReferences(run.referenceTypes) : [],
      ]);
      return { identityOwners, flights, requests, references };
    });
    const ctx = { now, policy, identity, processors: deps.processors, unsupported: deps.unsupported ?? DEFAULT_UNSUPPORTED_POLICY, ...(deps.maxRecordBytes !== undefined ? { maxRecordBytes: deps.maxRecordBytes } : {}) };
    return simulateReplay(run, loaded, ctx);
  }
}

const eligibilityPreview = (r: ProcRecord): ReplayPreview => ({ msgId: r.msgId, status: r.status, errorClass: r.errorClass, reason: r.reason, ...replayEligibility(r) });

/** The keys of `expect` whose stored version differs from it, read in the caller's transaction. */
async function versionMismatches(tx: PipelineTx, expect: Readonly<Record<string, number | null>>): Promise<VersionMismatch[]> {
  const keys = Object.keys(expect).map((key) => ({ key, parsed: parseVersionKey(key) }));
  const flids = keys.flatMap((k) => (k.parsed?.kind === "flight" ? [k.parsed.flid] : []));
  const rtypes = [...new Set(keys.flatMap((k) => (k.parsed?.kind === "reference" ? [k.parsed.rtype] : [])))];
  const [flights, references] = await Promise.all([flids.length > 0 ? tx.loadFlights(flids) : new Map(), rtypes.length > 0 ? tx.loadReferences(rtypes) : []]);
  const mismatches: VersionMismatch[] = [];
  for (const { key, parsed } of keys) {
    const expected = expect[key] ?? null;
    const current =
      parsed === undefined
        ? null
        : parsed.kind === "flight"
          ? (flights.get(parsed.flid)?.stateVersion ?? null)
          : (references.find((r) => r.rtype === parsed.rtype && r.rkey === parsed.rkey)?.version ?? null);
    // A key of neither form names nothing: it never matches, so a mangled guard cannot pass.
    if (parsed === undefined || current !== expected) mismatches.push({ key, expected, current });
  }
  return mismatches;
}
