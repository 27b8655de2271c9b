import { errorMessage, MsgxError } from "../errors/msgx-error.js";
import type { Clock } from "../runtime/clock.js";
import type { Logger } from "../runtime/logger.js";
import type { OutboundMailbox } from "../ports/outbound-mailbox.js";
import { SimulatedCrashMarker } from "../runtime/simulated-crash.js";
import { epochMsToDttm } from "./dttm-instant.js";
import { checkRequestParams, encodeRequest } from "./request-encoder.js";
import { decideRequest, evolveRequest, registerRequest, type RequestEvent } from "./request-machine.js";
import { nextSeqn, requestOptions, type RequestOptions } from "./request-options.js";
import { requestTypeOf, type RequestParams, type RequestRecord } from "./request-record.js";
import { RequestStatus } from "./request-status.js";
import type { RequestFilter, RequestStore } from "./request-store.js";

export interface RequestCoordinatorDeps {
  readonly store: RequestStore;
  readonly outbound: OutboundMailbox;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Named points where tests may crash the coordinator (throw `SimulatedCrashMarker`). */
  readonly failpoint?: (name: RequestFailpoint) => void;
}

/** After a send attempt was claimed, and after the outbound row was confirmed but before SENT was recorded. */
export type RequestFailpoint = "request.after-claim" | "request.after-insert";

/** What one `step` did, and when something is next due (null: nothing open). */
export interface RequestStep {
  readonly sent: readonly string[];
  readonly expired: readonly string[];
  readonly pickedUp: readonly string[];
  readonly failed: readonly string[];
  readonly next: number | null;
}

/** A registration: the new request, and the one of the same type it expired (if any). */
export interface Registration {
  readonly request: RequestRecord;
  readonly superseded: RequestRecord | undefined;
}

const REGISTER_ATTEMPTS = 3;

/**
 * The `REQ_TRACK` coordinator (SPEC §2.6, seed 000 §4.2). Every change of a request goes through
 * `evolveRequest` and a compare-and-set on the store, so the coordinator in the runner, a CLI in
 * another process and the pipeline (which closes answered requests) never overwrite each other.
 *
 * - `register`: one transaction expires the open request of the same type (`superseded`), takes
 *   the next SEQN of our counter (it wraps), and records the request with its final wire text.
 * - `request`: `register`, then one send attempt at once.
 * - `step`: one pass over the open requests: expire those past their deadline, send the
 *   REGISTERED ones no attempt holds, and mark SENT ones WAITING once the upstream picked their
 *   row up. Never sleeps; the runner's loop calls it again at `next`.
 *
 * Sending: an attempt is claimed first (`send-attempted`, a lease); the first attempt inserts;
 * every later one looks the row up by its exact text and inserts only if it is not there. SENT is
 * recorded only with the id of a confirmed row. A crash or `COMMIT_UNKNOWN` between insert and
 * SENT leaves the request REGISTERED; the next attempt (after the lease) finds the row: no blind
 * resend. A reply that arrives in that window is SKIPPED `no-request` (the request was not yet
 * known as sent).
 */
export class RequestCoordinator {
  readonly options: RequestOptions;
  readonly #deps: RequestCoordinatorDeps;

  constructor(deps: RequestCoordinatorDeps, options: Partial<RequestOptions> = {}) {
    this.#deps = deps;
    this.options = requestOptions(options);
  }

  /** Registers a request (see the class comment); throws `RequestInputError` for bad parameters. */
  async register(params: RequestParams, requestedBy: string): Promise<Registration> {
    checkRequestParams(params);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#registerOnce(params, requestedBy);
      } catch (e) {
        if (e instanceof MsgxError && e.kind === "CONFLICT" && attempt < REGISTER_ATTEMPTS) continue;
        throw e;
      }
    }
  }

  async #registerOnce(params: RequestParams, requestedBy: string): Promise<Registration> {
    const { store, clock } = this.#deps;
    const o = this.options;
    const result = await store.transaction(async (tx) => {
      const now = clock.now();
      const last = await tx.lastSeqn(o.sndr);
      const old = await tx.openOfType(requestTypeOf(params));
      let superseded: RequestRecord | undefined;
      if (old !== undefined) {
        superseded = evolveRequest(old, { type: "expired", at: now, reason: "superseded" });
        if (!(await tx.update(superseded, old.version))) throw new MsgxError("CONFLICT", `request ${old.requestId} changed while registering`);
      }
      const meta = { sndr: o.sndr, seqn: nextSeqn(last, o), dttm: epochMsToDttm(now, o.airportUtcOffsetMinutes) };
      await tx.saveSeqn(o.sndr, meta.seqn);
      const rawXml = encodeRequest(params, meta, o);
      const routingId = o.routingIds[params.kind];
      const request = await tx.insert(registerRequest({ params, meta, routingId, rawXml, requestedBy, now, timeoutMs: o.timeoutMs }));
      return { request, superseded };
    });
    this.#deps.logger.info("request registered", {
      requestId: result.request.requestId,
      type: result.request.requestType,
      seqn: result.request.seqn,
      by: requestedBy,
      ...(result.superseded ? { superseded: result.superseded.requestId } : {}),
    });
    return result;
  }

  /** Registers and makes one send attempt at once; returns the request as it then stands. */
  async request(params: RequestParams, requestedBy: string, signal?: AbortSignal): Promise<RequestRecord> {
    const { request } = await this.register(params, requestedBy);
    const outcome = await this.#send(request, false, signal);
    return outcome.request;
  }

  async step(signal?: AbortSignal): Promise<RequestStep> {
    const { store, clock } = this.#deps;
    const sent: string[] = [];
    const expired: string[] = [];
    const failed: string[] = [];
    const observe: RequestRecord[] = [];
    let next: number | null = null;
    const due = (t: number | null) => (next = t === null ? next : next === null ? t : Math.min(next, t));
    for (const r of await store.open()) {
      if (signal?.aborted) break;
      const action = decideRequest(r, clock.now());
      switch (action.type) {
        case "wait":
          due(action.until);
          break;
        case "expire":
          if (await this.#change(r, { type: "expired", at: clock.now(), reason: "timeout" })) expired.push(r.requestId);
          break;
        case "send": {
          const outcome = await this.#send(r, action.lookupFirst, signal);
          (outcome.sent ? sent : failed).push(r.requestId);
          due(outcome.request.status === RequestStatus.REGISTERED ? outcome.request.nextAttemptAt : outcome.request.deadlineAt);
          break;
        }
        case "observe":
          observe.push(r);
          due(r.deadlineAt);
          break;
      }
    }
    const pickedUp = await this.#observe(observe, signal);
    return { sent, expired, pickedUp, failed, next };
  }

  get(requestId: string): Promise<RequestRecord | undefined> {
    return this.#deps.store.get(requestId);
  }

  list(filter: RequestFilter): Promise<readonly RequestRecord[]> {
    return this.#deps.store.list(filter);
  }

  /** One send attempt (see the class comment). Never throws for an outbound failure: it is recorded. */
  async #send(r: RequestRecord, lookupFirst: boolean, signal?: AbortSignal): Promise<{ request: RequestRecord; sent: boolean }> {
    const { store, outbound, clock, logger } = this.#deps;
    const o = this.options;
    const now = clock.now();
    const claimed = evolveRequest(r, { type: "send-attempted", at: now, leaseUntil: now + o.sendLeaseMs });
    if (!(await store.update(claimed, r.version))) return { request: (await store.get(r.requestId)) ?? r, sent: false };
    this.#deps.failpoint?.("request.after-claim");
    let event: RequestEvent;
    try {
      const found = lookupFirst
        ? await outbound.find({ routingId: r.routingId, rawXml: r.rawXml, insertedSince: r.registeredAt - o.lookupSkewMs }, signal)
        : [];
      const [row] = found;
      if (row !== undefined) {
        event = { type: "sent", at: row.insertedAt, outboundId: row.id, recovered: true, timeoutMs: o.timeoutMs };
      } else {
        const at = clock.now();
        const outboundId = await outbound.insert(r.rawXml, r.routingId, signal);
        event = { type: "sent", at, outboundId, recovered: false, timeoutMs: o.timeoutMs };
      }
      this.#deps.failpoint?.("request.after-insert");
    } catch (e) {
      if (e instanceof SimulatedCrashMarker) throw e;
      const error = errorMessage(e);
      logger.warn("request send failed; will look the row up before any retry", { requestId: r.requestId, error });
      const failedRecord = evolveRequest(claimed, { type: "send-failed", at: clock.now(), error, retryAt: clock.now() + o.retryMs });
      const saved = await store.update(failedRecord, claimed.version).catch(() => false);
      return { request: saved ? failedRecord : claimed, sent: false };
    }
    const sentRecord = evolveRequest(claimed, event);
    if (!(await store.update(sentRecord, claimed.version))) {
      // Closed meanwhile (superseded or expired by another process): the row is out; its reply,
      // if any, finds no open request and changes nothing.
      logger.warn("request closed while it was being sent", { requestId: r.requestId, outboundId: sentRecord.outboundId });
      return { request: (await store.get(r.requestId)) ?? claimed, sent: false };
    }
    logger.info("request sent", { requestId: r.requestId, outboundId: sentRecord.outboundId, recovered: event.type === "sent" && event.recovered });
    return { request: sentRecord, sent: true };
  }

  async #observe(requests: readonly RequestRecord[], signal?: AbortSignal): Promise<string[]> {
    const ids = requests.flatMap((r) => (r.outboundId === null ? [] : [r.outboundId]));
    if (ids.length === 0) return [];
    let rows;
    try {
      rows = await this.#deps.outbound.find({ ids }, signal);
    } catch (e) {
      this.#deps.logger.warn("cannot read outbound rows; pick-up not observed this pass", { error: errorMessage(e) });
      return [];
    }
    const pickedUp: string[] = [];
    for (const r of requests) {
      const row = rows.find((x) => x.id === r.outboundId);
      if (row?.sentAt == null) continue;
      if (await this.#change(r, { type: "picked-up", at: row.sentAt })) pickedUp.push(r.requestId);
    }
    return pickedUp;
  }

  /** Applies one event with a compare-and-set; false when the request changed meanwhile. */
  async #change(r: RequestRecord, event: RequestEvent): Promise<boolean> {
    const ok = await this.#deps.store.update(evolveRequest(r, event), r.version);
    if (ok && event.type === "expired") this.#deps.logger.info("request expired", { requestId: r.requestId, type: r.requestType, reason: event.reason });
    return ok;
  }
}
