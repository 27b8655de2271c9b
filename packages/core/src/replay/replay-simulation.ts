import type { ErrorClass } from "../errors/error-class.js";
import { flightToPayload } from "../flight/flight-payload.js";
import { fieldDiff, type FieldChange } from "../model/field-diff.js";
import type { FlightState } from "../model/flight-state.js";
import type { ProcStatus } from "../model/proc-record.js";
import { decideRun } from "../processing/decide-run.js";
import type { PreparedRun } from "../processing/prepare-run.js";
import type { LoadedState, RunContext } from "../processing/run-context.js";
import type { IdentityOwner } from "../processing/run-decision.js";
import { refKey, type RefState } from "../requests/reference-entry.js";
import type { RequestRecord } from "../requests/request-record.js";
import { flightVersionKey, referenceVersionKey } from "./version-key.js";

/** What applying a replayed message now would do to one flight or reference row. */
export interface KeyChange {
  readonly kind: "flight" | "reference";
  /** The version-guard key (`flight:<FLID>`, `reference:<RTYPE>:<RKEY>`). */
  readonly key: string;
  /** The version the message would find (after the earlier messages of the same replay); null: not stored. */
  readonly currentVersion: number | null;
  readonly nextVersion: number;
  /**
   * The published fields that would change: the flight event's value (`flightToPayload`) or the
   * reference row as `/admin/reference` shows it (`rtype`, `rkey`, `fields`, `deleted`, `version`, `msgId`).
   */
  readonly changes: readonly FieldChange[];
}

/** How a replayed message would end if processed now. */
export interface ReplayOutcome {
  readonly status: ProcStatus;
  readonly errorClass: ErrorClass | null;
  readonly reason: string | null;
}

export interface SimulatedMessage {
  readonly outcome: ReplayOutcome;
  readonly changes: readonly KeyChange[];
}

/** The dry run of a replay: per message, and the guard to send back with the apply. */
export interface ReplaySimulation {
  readonly messages: ReadonlyMap<number, SimulatedMessage>;
  /** Every key some message would change, with its version as stored now (null: not stored). */
  readonly expect: Readonly<Record<string, number | null>>;
}

const referenceRow = (r: RefState & { readonly msgId: number }) => ({ rtype: r.rtype, rkey: r.rkey, fields: r.fields, deleted: r.deleted, version: r.version, msgId: r.msgId });

/**
 * Pure: decides each replayed message (its record already back to PENDING) with `decideRun`, as
 * the pump would once it is the head, in id order, each against the state the earlier ones
 * left. Unlike a pump run, a message that would fail again does not hide the ones behind it:
 * each gets its own outcome. Nothing is written; the result says what would change.
 */
export function simulateReplay(run: PreparedRun, loaded: LoadedState, ctx: RunContext): ReplaySimulation {
  const flights = new Map<string, FlightState>(loaded.flights);
  const owners = new Map<string, IdentityOwner>(loaded.identityOwners);
  const references = new Map<string, RefState & { readonly msgId?: number }>((loaded.references ?? []).map((r) => [refKey(r.rtype, r.rkey), r]));
  let requests: readonly RequestRecord[] | undefined = loaded.requests;
  const expect: Record<string, number | null> = {};
  const messages = new Map<number, SimulatedMessage>();
  for (const m of run.messages) {
    const state: LoadedState = {
      identityOwners: owners,
      flights,
      references: [...references.values()],
      ...(requests ? { requests } : {}),
      ...(loaded.openRequests ? { openRequests: loaded.openRequests } : {}),
    };
    const decision = decideRun({ ...run, messages: [m] }, state, ctx);
    const changes: KeyChange[] = [];
    for (const next of decision.flights) {
      const before = flights.get(next.flid);
      const key = flightVersionKey(next.flid);
      if (!(key in expect)) expect[key] = loaded.flights.get(next.flid)?.stateVersion ?? null;
      const diff = fieldDiff(before ? flightToPayload(before) : null, flightToPayload(next));
      changes.push({ kind: "flight", key, currentVersion: before?.stateVersion ?? null, nextVersion: next.stateVersion, changes: diff });
      flights.set(next.flid, next);
    }
    for (const next of decision.references ?? []) {
      const before = references.get(refKey(next.rtype, next.rkey));
      const key = referenceVersionKey(next.rtype, next.rkey);
      if (!(key in expect)) expect[key] = (loaded.references ?? []).find((r) => r.rtype === next.rtype && r.rkey === next.rkey)?.version ?? null;
      const diff = fieldDiff(before ? referenceRow({ msgId: 0, ...before }) : null, referenceRow(next));
      changes.push({ kind: "reference", key, currentVersion: before?.version ?? null, nextVersion: next.version, changes: diff });
      references.set(refKey(next.rtype, next.rkey), next);
    }
    for (const b of decision.bindings) owners.set(b.identityKey, { msgId: b.msgId, contentHash: b.contentHash ?? null, boundAt: ctx.now });
    const closed = new Map((decision.requests ?? []).map((c) => [c.request.requestId, c.request]));
    if (requests && closed.size > 0) requests = requests.map((r) => closed.get(r.requestId) ?? r);
    const record = decision.records[0]!;
    messages.set(m.record.msgId, { outcome: { status: record.status, errorClass: record.errorClass, reason: record.reason }, changes });
  }
  return { messages, expect };
}
