import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { encodedRecordBytes } from "@msgx/core/testing";
import { eventHeaders, recordBytes, type OutboxEvent } from "@msgx/core";

type Encoded = { readonly buffer: Buffer };
const require = createRequire(import.meta.url);
// kafkajs' own encoders of a record and of the batch it travels in (not part of its public API).
const Record = require("kafkajs/src/protocol/recordBatch/record/v0") as (r: { key: Buffer; value: Buffer | null; headers: Record<string, string> }) => Encoded;
const { RecordBatch } = require("kafkajs/src/protocol/recordBatch/v0") as { RecordBatch: (b: { records: Encoded[] }) => Promise<Encoded> };

/** The bytes kafkajs puts on the wire for `record` sent as a batch of its own. */
async function onTheWire(record: { key: string; value: string | null; headers: Record<string, string> }): Promise<number> {
  const encoded = Record({ key: Buffer.from(record.key), value: record.value === null ? null : Buffer.from(record.value), headers: record.headers });
  return (await RecordBatch({ records: [encoded] })).buffer.length;
}

/** recordBytes counts the timestamp and offset deltas at their widest; alone in its batch each takes one byte. */
const DELTA_SLACK = 10 + 5 - 2;

describe("recordBytes is what kafkajs sends", () => {
  type Wire = { key: string; value: string | null; headers: Record<string, string> };
  const cases: Wire[] = [
    { key: "900101", value: JSON.stringify({ flid: "900101", fields: { REMC: "航".repeat(80) } }), headers: { "msgx-event-id": "17", traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" } },
    { key: "900101", value: null, headers: {} },
    { key: "AIRL:CZ", value: "x".repeat(300_000), headers: { "msgx-owner": "司机" } },
  ];

  it.each(cases.map((c, i) => [i, c] as const))("record %i: an upper bound at most the deltas' slack above the encoded batch", async (_, record) => {
    const wire = await onTheWire(record);
    expect(recordBytes(record)).toBeGreaterThanOrEqual(wire);
    expect(recordBytes(record) - wire).toBeLessThanOrEqual(DELTA_SLACK);
  });

  it("an event's size holds for the record delivery builds from it, whatever its event id and trace", async () => {
    const draft = { target: "KAFKA:msg", partitionKey: "900101", eventType: "UPSERT", stateVersion: 12, payload: { flid: "900101", v: "航班" }, sourceMsgId: 4711 } as const;
    const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const event: OutboxEvent = { ...draft, traceparent, eventId: 123_456, status: "PENDING", attempts: 0, nextAttemptAt: null, lastError: null, createdAt: 0, sentAt: null };
    const wire = await onTheWire({ key: draft.partitionKey, value: JSON.stringify(draft.payload), headers: eventHeaders(event) });
    expect(encodedRecordBytes(draft)).toBeGreaterThanOrEqual(wire);
    expect(encodedRecordBytes(draft) - wire).toBeLessThanOrEqual(DELTA_SLACK + String(Number.MAX_SAFE_INTEGER).length - "123456".length);
  });
});
