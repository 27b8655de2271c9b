import { describe, expect, it } from "vitest";
import { EventHeader, readEventHeaders } from "@msgx/adapters-kafka";
import { eventHeadersOf } from "./kafka-test-kit.js";

describe("event headers", () => {
  it("uses the documented header names", () => {
    expect(Object.values(EventHeader).sort()).toEqual(
      ["msgx-event-id", "msgx-event-type", "msgx-source-msg-id", "msgx-state-version", "traceparent"].sort(),
    );
  });

  it("reads the headers msgx sends back from kafkajs Buffers", () => {
    const built = eventHeadersOf({ eventId: 5, eventType: "UPSERT", stateVersion: 4, sourceMsgId: 8, traceparent: "00-a-b-01" });
    const consumed = Object.fromEntries(Object.entries(built).map(([k, v]) => [k, Buffer.from(v)]));
    expect(readEventHeaders(consumed)).toEqual({ eventId: "5", eventType: "UPSERT", stateVersion: 4, sourceMsgId: "8", traceparent: "00-a-b-01" });
  });

  it("returns undefined for records msgx did not write", () => {
    expect(readEventHeaders(undefined)).toBeUndefined();
    expect(readEventHeaders({ "msgx-event-id": "1" })).toBeUndefined();
    const bad = eventHeadersOf({ eventId: 1, eventType: "UPSERT", stateVersion: 1, sourceMsgId: 1 });
    expect(readEventHeaders({ ...bad, "msgx-state-version": "1.5" })).toBeUndefined();
  });
});
