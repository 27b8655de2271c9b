import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { parseTraceparent, silentLogger } from "@msgx/core";
import { SpanName } from "@msgx/core/testing";
import { createExchange, loadConfig } from "@msgx/runner";
import kafkajs from "kafkajs";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { kafkaAvailability } from "../../adapters-kafka/test/kafka-available.js";
import { schemaErrors } from "../../core/test/schemas/event-schemas.js";

/** A schedule download of one new flight: it is SUCCEEDED and writes a msg and a schd event. */
const DNLD =
  `<MSG><META><SNDR>AODB</SNDR><SEQN>1</SEQN><DTTM>20260305020000</DTTM><TYPE>SCHD</TYPE><STYP>DNLD</STYP></META><SCHD><RECS>1</RECS>` +
  `<FLTR><FLID>900001</FLID><ALCD>LH</ALCD><FLNO>LH1000</FLNO><MVIN>A</MVIN><SODT>05MAR261000</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>320</ACFT><TRML>T1</TRML>` +
  `<ROUT RTNO="1"><APCD>FRA</APCD><SCDT>05MAR261000</SCDT></ROUT></FLTR></SCHD></MSG>`;

/** The caller's span: a W3C example id, as a client library would send it. */
const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
const CALLER = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
});
afterAll(async () => {
  await provider.shutdown();
  trace.disable();
});

const dirs: string[] = [];
afterEach(() => {
  exporter.reset();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function config(overrides: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "msgx-trace-"));
  dirs.push(dataDir);
  // Every flight kept: the fixtures' day (2026-03-05) is long past, and the daily sweep must not retire it mid-test.
  return loadConfig({ env: {}, overrides: { dataDir, "http.port": "0", "history.retentionDays": "36500", "pipeline.pollIntervalMs": "5000", ...overrides } });
}

async function until<T>(what: string, get: () => T | undefined | Promise<T | undefined>, ms = 8_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** POSTs one message with the caller's traceparent and waits for its msg record's delivery span. */
async function sendTraced(exchange: Awaited<ReturnType<typeof createExchange>>, topic: string): Promise<{ msgId: number; spans: ReadableSpan[] }> {
  const url = await exchange.start();
  const res = await fetch(`${url}/cminmsgs/send`, { method: "POST", headers: { "content-type": "application/xml", traceparent: CALLER }, body: DNLD });
  expect(res.status).toBe(200);
  const msgId = Number(await res.text());
  const spans = await until("the msg record's delivery span", () => {
    const all = exporter.getFinishedSpans();
    return all.some((s) => s.name === SpanName.DELIVER && s.attributes["messaging.destination.name"] === topic) ? all : undefined;
  }).catch(async (e: unknown) => {
    const record = await exchange.parts.store.get(msgId);
    throw new Error(`${String(e)}; message ${msgId} is ${record?.status} (${record?.reason}); spans: ${exporter.getFinishedSpans().map((s) => s.name).join(", ")}`);
  });
  return { msgId, spans };
}

/** The spans of one trace as an indented tree (what docs/operations.md shows). */
function spanTree(spans: readonly ReadableSpan[], traceId: string): string {
  const mine = spans.filter((s) => s.spanContext().traceId === traceId);
  const lines: string[] = [`trace ${traceId} (caller span ${CALLER_SPAN})`];
  const walk = (parent: string, depth: number) => {
    for (const s of mine.filter((x) => x.parentSpanContext?.spanId === parent)) {
      const attrs = Object.entries(s.attributes).map(([k, v]) => `${k}=${String(v)}`).join(" ");
      lines.push(`${"  ".repeat(depth)}└─ ${s.name} [${s.spanContext().spanId}] ${attrs}`);
      walk(s.spanContext().spanId, depth + 1);
    }
  };
  walk(CALLER_SPAN, 1);
  return lines.join("\n");
}

function expectOneTree(spans: readonly ReadableSpan[], msgId: number, topic: string): ReadableSpan[] {
  const mine = spans.filter((s) => s.spanContext().traceId === CALLER_TRACE);
  const one = (name: string) => {
    const found = mine.filter((s) => s.name === name);
    expect(found.map((s) => s.name)).toEqual([name]);
    return found[0]!;
  };
  const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
  const ingress = one(SpanName.INGRESS);
  const intake = one(SpanName.INTAKE);
  const process = one(SpanName.PROCESS);
  const deliver = mine.filter((s) => s.name === SpanName.DELIVER && s.attributes["messaging.destination.name"] === topic);
  expect(parentOf(ingress)).toBe(CALLER_SPAN);
  expect(parentOf(intake)).toBe(ingress.spanContext().spanId);
  expect(parentOf(process)).toBe(intake.spanContext().spanId);
  expect(deliver.length).toBeGreaterThan(0);
  for (const d of deliver) expect(parentOf(d)).toBe(process.spanContext().spanId);
  expect(ingress.attributes["msgx.msg_id"]).toBe(msgId);
  expect(process.attributes["msgx.status"]).toBe("SUCCEEDED");
  return deliver;
}

describe("one message traced from POST /cminmsgs/send to the record (OTel in-memory exporter)", () => {
  it("exports ingress → intake → process → deliver as one tree under the caller's span, and stores the trace with the message and its events", async () => {
    const exchange = await createExchange(config(), { logger: silentLogger });
    try {
      const { msgId, spans } = await sendTraced(exchange, "msg");
      expectOneTree(spans, msgId, "msg");
      expect(parseTraceparent((await exchange.parts.store.get(msgId))?.traceparent)?.traceId).toBe(CALLER_TRACE);
      console.log(spanTree(spans, CALLER_TRACE));
    } finally {
      await exchange.stop();
    }
  });
});

const kafka = await kafkaAvailability("runner message-trace.int (a real consumer reads the traceparent)");

describe.runIf(kafka.available)("the same traceparent read back from the Kafka record by a real kafkajs consumer", () => {
  it("carries the caller's trace id and the delivery span's id in the record's traceparent header", async () => {
    const suffix = `${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
    const topics = { msg: `trace-msg-${suffix}`, schd: `trace-schd-${suffix}`, ref: `trace-ref-${suffix}` };
    const exchange = await createExchange(
      config({ "kafka.brokers": kafka.brokers.join(","), "kafka.msgTopic": topics.msg, "kafka.schdTopic": topics.schd, "kafka.refTopic": topics.ref }),
      { logger: silentLogger },
    );
    const client = new kafkajs.Kafka({ brokers: [...kafka.brokers], clientId: "trace-test", logLevel: kafkajs.logLevel.NOTHING });
    const consumer = client.consumer({ groupId: `trace-test-${suffix}` });
    try {
      const { msgId, spans } = await sendTraced(exchange, topics.msg);
      const deliver = expectOneTree(spans, msgId, topics.msg);

      await consumer.connect();
      await consumer.subscribe({ topic: topics.msg, fromBeginning: true });
      const headers: string[] = [];
      const values: (Buffer | null)[] = [];
      await consumer.run({
        eachMessage: async ({ message }) => {
          headers.push(String(message.headers?.["traceparent"] ?? ""));
          values.push(message.value);
        },
      });
      const [header] = await until("the msg record", () => (headers.length > 0 ? headers : undefined), 20_000);
      const read = parseTraceparent(header);
      expect(read?.traceId).toBe(CALLER_TRACE);
      expect(deliver.map((d) => d.spanContext().spanId)).toContain(read?.spanId);
      // The record value as published is the flight payload of the published schema.
      expect(values[0]).not.toBeNull();
      expect(schemaErrors("flight", values[0])).toEqual([]);
    } finally {
      await consumer.disconnect();
      await exchange.stop();
    }
  }, 40_000);
});
