import type { FlightRecord, FlightState, OutboxEventDraft, ProcessorTable } from "@msgx/core";

/**
 * Small, deterministic flight processors for the store tests (the real ones live in core):
 * `flop` merges each block into its flight (stated scalars and collections replace, absent ones
 * stay), bumps the version, and emits one UPSERT per block; a block whose SODT names another
 * operation day than the stored one rejects the whole message (PROTOCOL). `fdel` marks the flight
 * deleted and emits a TOMBSTONE; an unknown flight is SKIPPED.
 */
export const testProcessors: ProcessorTable = {
  flop: {
    flightsOf: (body) => body.blocks.map((b) => b.flid),
    apply: (body, ctx) => {
      const changed = new Map<string, FlightState>();
      const events: OutboxEventDraft[] = [];
      for (const block of body.blocks) {
        const before = changed.get(block.flid) ?? ctx.flights.get(block.flid);
        const day = operationDayOf(block);
        if (before?.operationDay != null && day !== null && day !== before.operationDay) {
          return { type: "rejected", reason: `operation day ${day} differs from ${before.operationDay} on ${block.flid}` };
        }
        const next: FlightState = {
          flid: block.flid,
          ffid: block.ffid !== undefined ? block.ffid : (before?.ffid ?? null),
          operationDay: before?.operationDay ?? day,
          stateVersion: (before?.stateVersion ?? 0) + 1,
          lastMsgId: ctx.msgId,
          lastSrcDttm: ctx.meta.dttm,
          deleted: false,
          scalars: { ...before?.scalars, ...block.scalars },
          collections: { ...before?.collections, ...block.collections },
        };
        changed.set(block.flid, next);
        events.push({
          target: "KAFKA:msg",
          partitionKey: block.flid,
          eventType: "UPSERT",
          stateVersion: next.stateVersion,
          payload: { flid: next.flid, version: next.stateVersion, scalars: next.scalars },
          sourceMsgId: ctx.msgId,
        });
      }
      return { type: "applied", flights: [...changed.values()], events };
    },
  },
  fdel: {
    flightsOf: (body) => [body.flid],
    apply: (body, ctx) => {
      const before = ctx.flights.get(body.flid);
      if (before === undefined) return { type: "skipped", reason: `no-flight:${body.flid}` };
      const next: FlightState = { ...before, deleted: true, stateVersion: before.stateVersion + 1, lastMsgId: ctx.msgId, lastSrcDttm: ctx.meta.dttm };
      return {
        type: "applied",
        flights: [next],
        events: [
          { target: "KAFKA:msg", partitionKey: body.flid, eventType: "TOMBSTONE", stateVersion: next.stateVersion, payload: null, sourceMsgId: ctx.msgId },
        ],
      };
    },
  },
};

/** `yyyyMMdd` of a stated SODT (`yyyy-MM-ddTHH:mm`), or null. */
function operationDayOf(block: FlightRecord): string | null {
  const sodt = block.scalars.SODT;
  return typeof sodt === "string" ? sodt.slice(0, 10).replace(/-/g, "") : null;
}
