import { describe, expect, it } from "vitest";
import { EventHeader, buildEventHeaders, readEventHeaders } from "@msgx/adapters-kafka";

describe("event headers", () => {
  it("uses the documented header names", () => {
    expect(Object.values(EventHeader).sort()).toEqual(
      ["msgx-event-id", "msgx-event-type", "msgx-source-msg-id", "msgx-state-version", "traceparent"].sort(),
    );
  });

  it("builds decimal strings and leaves out an absent traceparent", () => {
    expect(buildEventHeaders({ eventId: 12, eventType: "UPSERT", stateVersion: 3, sourceMsgId: 77, traceparent: null })).toEqual({
      "msgx-event-id": "12",
      "msgx-event-type": "UPSERT",
      "msgx-state-version": "3",
      "msgx-source-msg-id": "77",
    });
    const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    expect(buildEventHeaders({ eventId: 1, eventType: "TOMBSTONE", stateVersion: 9, sourceMsgId: 2, traceparent: tp })[EventHeader.TRACEPARENT]).toBe(tp);
  });

  it("reads them back from kafkajs Buffers", () => {
    const built = buildEventHeaders({ eventId: 5, eventType: "UPSERT", stateVersion: 4, sourceMsgId: 8, traceparent: "00-a-b-01" });
    const consumed = Object.fromEntries(Object.entries(built).map(([k, v]) => [k, Buffer.from(v)]));
    expect(readEventHeaders(consumed)).toEqual({ eventId: "5", eventType: "UPSERT", stateVersion: 4, sourceMsgId: "8", traceparent: "00-a-b-01" });
  });

  it("returns undefined for records msgx did not write", () => {
    expect(readEventHeaders(undefined)).toBeUndefined();
    expect(readEventHeaders({ "msgx-event-id": "1" })).toBeUndefined();
    const bad = buildEventHeaders({ eventId: 1, eventType: "UPSERT", stateVersion: 1, sourceMsgId: 1 });
    expect(readEventHeaders({ ...bad, "msgx-state-version": "1.5" })).toBeUndefined();
  });
});
