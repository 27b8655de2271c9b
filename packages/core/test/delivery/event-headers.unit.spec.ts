import { describe, expect, it } from "vitest";
import { EventHeader, eventHeaders, readEventId } from "../../src/outbox/event-headers.js";
import { DeliveryStatus, EventType, Target, type OutboxEvent } from "../../src/outbox/outbox-event.js";

const event = (extra: Partial<OutboxEvent> = {}): OutboxEvent => ({
  eventId: 42,
  target: Target.MSG,
  partitionKey: "F1",
  eventType: EventType.UPSERT,
  stateVersion: 7,
  payload: { a: 1 },
  sourceMsgId: 9001,
  traceparent: null,
  status: DeliveryStatus.PENDING,
  attempts: 0,
  nextAttemptAt: null,
  lastError: null,
  createdAt: 0,
  sentAt: null,
  ...extra,
});

describe("event headers", () => {
  it("names the headers the Kafka adapter and consumers share", () => {
    expect(EventHeader).toEqual({
      EVENT_ID: "msgx-event-id",
      EVENT_TYPE: "msgx-event-type",
      STATE_VERSION: "msgx-state-version",
      SOURCE_MSG_ID: "msgx-source-msg-id",
      TRACEPARENT: "traceparent",
    });
  });

  it("carries event id, type, state version and source message id as strings", () => {
    expect(eventHeaders(event({ eventType: EventType.TOMBSTONE }))).toEqual({
      "msgx-event-id": "42",
      "msgx-event-type": "TOMBSTONE",
      "msgx-state-version": "7",
      "msgx-source-msg-id": "9001",
    });
  });

  it("adds traceparent only when the event has one", () => {
    const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    expect(eventHeaders(event({ traceparent: tp }))["traceparent"]).toBe(tp);
    expect("traceparent" in eventHeaders(event({ traceparent: undefined }))).toBe(false);
  });

  it("sends the headers stored on the row with the msgx headers; no stored header can replace or forge a msgx one", () => {
    const stored = { "msgx-owner": "LMS", "x-tenant": "t1", "msgx-event-id": "1", "msgx-state-version": "99", traceparent: "forged" };
    expect(eventHeaders(event({ headers: stored }))).toEqual({
      "msgx-owner": "LMS",
      "x-tenant": "t1",
      "msgx-event-id": "42",
      "msgx-event-type": "UPSERT",
      "msgx-state-version": "7",
      "msgx-source-msg-id": "9001",
    });
    const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    expect(eventHeaders(event({ headers: stored, traceparent: tp }))["traceparent"]).toBe(tp);
    expect(eventHeaders(event({ headers: null }))).toEqual(eventHeaders(event()));
  });

  it("reads an event id back, refusing anything that is not a plain integer", () => {
    expect(readEventId(eventHeaders(event()))).toBe(42);
    expect(readEventId({})).toBeUndefined();
    expect(readEventId({ "msgx-event-id": "4x" })).toBeUndefined();
    expect(readEventId({ "msgx-event-id": "-1" })).toBeUndefined();
    expect(readEventId({ "msgx-event-id": "99999999999999999999" })).toBeUndefined();
  });
});
