import { MsgxError, RequestCoordinator, type Clock, type Logger, type RouterStep } from "@msgx/core";
import type { MsgxConfig } from "../config/config-schema.js";
import type { RequestAdmin } from "../http/http-context.js";
import type { AppParts } from "./app-parts.js";
import type { StepContext } from "./step-context.js";

/** The coordinator over the runner's parts: `REQ_TRACK` in msgx's database, the outbound mailbox (`coutmsgs`, `mysql.outbound`) as configured. */
export function createRequestCoordinator(parts: Pick<AppParts, "requests" | "outbound">, config: MsgxConfig, clock: Clock, logger: Logger): RequestCoordinator {
  const r = config.requests;
  return new RequestCoordinator(
    { store: parts.requests, outbound: parts.outbound, clock, logger },
    {
      sndr: r.sndr,
      seqnFirst: r.seqnFirst,
      seqnLast: r.seqnLast,
      timeoutMs: r.timeoutMs,
      sendLeaseMs: r.sendLeaseMs,
      retryMs: r.retryMs,
      routingIds: { RQFD: r.rqfdRoutingId, RQRD: r.rqrdRoutingId },
      rangeTimeFormat: r.rangeTimeFormat,
      schemaLocation: r.schemaLocation,
      airportUtcOffsetMinutes: config.airport.utcOffsetMinutes,
    },
  );
}

/**
 * Requests and reference data for the admin HTTP routes and the CLI. A new request is registered
 * and sent at once (the coordinator loop retries what could not be sent). Shadow mode never
 * writes the shared mailbox, so it asks nothing upstream (`CONFIG`).
 */
export function createRequestAdmin(parts: Pick<AppParts, "requests" | "references" | "outbound">, config: MsgxConfig, clock: Clock, logger: Logger): RequestAdmin {
  const coordinator = createRequestCoordinator(parts, config, clock, logger);
  const references = parts.references;
  const refuseInShadow = () => {
    if (config.shadow) throw new MsgxError("CONFIG", "shadow mode never writes the outbound mailbox (coutmsgs): no upstream requests");
  };
  return {
    schedule: async (from, to, operator) => {
      refuseInShadow();
      return coordinator.request({ kind: "RQFD", from, to }, operator);
    },
    reference: async (rtype, operator) => {
      refuseInShadow();
      return coordinator.request({ kind: "RQRD", rtype }, operator);
    },
    list: (filter) => coordinator.list(filter),
    get: (requestId) => coordinator.get(requestId),
    referenceTypes: () => references.types(),
    referenceList: (query) => references.list(query),
    referenceGet: (rtype, rkey) => references.get(rtype, rkey),
  };
}

/**
 * The request coordinator's step (docs/requests.md): sends what is registered (looking rows up
 * before any retry), marks picked-up requests WAITING, expires those past their deadline. It
 * passes every `requests.pollMs`, sooner when something falls due. Off in shadow mode.
 */
export function requestSteps(ctx: StepContext): RouterStep[] {
  if (ctx.config.shadow) return [];
  const coordinator = createRequestCoordinator(ctx.parts, ctx.config, ctx.clock, ctx.logger);
  const pollMs = ctx.config.requests.pollMs;
  return [
    {
      name: "requests",
      run: async (signal) => {
        const step = await coordinator.step(signal);
        return { after: step.next === null ? pollMs : Math.max(0, Math.min(pollMs, step.next - ctx.clock.now())), wake: [] };
      },
    },
  ];
}
