import { fc, test as fcTest } from "@fast-check/vitest";
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { COLLECTION_NAMES, COLLECTIONS, collectionSpec, SCALAR_FIELDS, type ValueKind } from "../../src/model/flight-schema.js";
import { REFERENCE_SCHEMAS, type RefFieldKind } from "../../src/model/reference-schema.js";
import { Target, type OutboxEventDraft } from "../../src/outbox/outbox-event.js";
import { referenceEvent } from "../../src/requests/reference-events.js";
import { deadLetterDraft, envelopeOf, sendDraft } from "../../../reliable/src/message-envelope.js";
import { checkReliableMessageDraft } from "../../../reliable/src/message-draft.js";
import { ReliableMessageStatus, type ReliableMessage } from "../../../reliable/src/reliable-message.js";
import type { DeliveryRecord } from "../../src/ports/delivery-port.js";
import { resultTopicCallbackPort } from "../../../tasks/src/task-callback-port.js";
import { TaskCallbackResult } from "../../../tasks/src/task-callback.js";
import { taskEventId, taskEventMessage, TaskEventType } from "../../../tasks/src/task-event.js";
import { newTaskRecord } from "../../../tasks/src/task-record.js";
import { escapeXml } from "../../src/testing/sis-xml.arbitraries.js";
import { fixture, msg } from "../codec/sis-fixtures.js";
import { FlightHarness } from "../flight/flight-harness.js";
import { arbMessageStream, arbXmlStyle, messageToXml } from "../flight/flight-stream.arbitraries.js";
import { EVENT_SCHEMAS, eventSchema, schemaErrors, schemaFiles, type EventSchemaName } from "./event-schemas.js";

/** The schema a payload of `target` follows (flight and reference targets; others are not flight events). */
const schemaOfTarget = (target: string): EventSchemaName => (target === Target.REF ? "reference" : "flight");

type Props = Record<string, Record<string, unknown>>;
const props = (schema: unknown): Props => (schema as { properties: Props }).properties;

/** Every property the schema lists is in `payload` but those `absent` says: a builder may not drop an optional one. */
function expectComplete(name: EventSchemaName, payload: object, absent: readonly string[] = []): void {
  const own = Object.keys(eventSchema(name)["properties"] ?? {});
  const envelope = Object.keys(props((eventSchema("reliable-message")["$defs"] as Props)["envelope"]));
  const listed = name.startsWith("reliable-message") ? [...envelope, ...own] : own;
  expect(Object.keys(payload).sort()).toEqual(listed.filter((k) => !absent.includes(k)).sort());
}

describe("the event schemas", () => {
  it("are the published files, each valid draft 2020-12 under ajv's strict mode", () => {
    expect(schemaFiles()).toEqual(EVENT_SCHEMAS.map((n) => `${n}.schema.json`).sort());
    for (const name of EVENT_SCHEMAS) {
      const schema = eventSchema(name);
      expect(schema["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(schema["$id"]).toBe(`https://msgx.dev/schemas/${name}.schema.json`);
      expect(typeof schema["title"]).toBe("string");
      expect(schemaErrors(name, {})).not.toEqual([]);
    }
  });

  describe("flight (msg and schd values)", () => {
    // The schema is hand-written (it carries the prose); this keeps it true to the model, so a
    // field added to SCALAR_FIELDS or COLLECTIONS fails here until the schema states it.
    const kindSchema = (kind: ValueKind): Record<string, unknown> =>
      typeof kind === "object" ? ("oneOf" in kind ? { enum: [...kind.oneOf, null] } : { $ref: "#/$defs/text", type: ["string", "null"], maxLength: kind.maxChars }) : { $ref: `#/$defs/${kind}` };
    const withoutDescription = ({ description: _d, ...rest }: Record<string, unknown>) => rest;
    const root = props(eventSchema("flight"));

    it("states every scalar field of the model with its value kind, and nothing else", () => {
      const fields = props(root["fields"]);
      expect(Object.keys(fields), "flight.schema.json names every SCALAR_FIELDS field, in its order: state a new one there").toEqual(Object.keys(SCALAR_FIELDS));
      for (const [name, kind] of Object.entries(SCALAR_FIELDS)) {
        expect(withoutDescription(fields[name]!), name).toEqual(kindSchema(kind));
        expect(typeof fields[name]!["description"], name).toBe("string");
      }
    });

    it("states every collection of the model with its row values, and nothing else", () => {
      const collections = props(root["collections"]);
      expect(Object.keys(collections), "flight.schema.json names every COLLECTIONS entry, in its order: state a new one there").toEqual(Object.keys(COLLECTIONS));
      for (const name of COLLECTION_NAMES) {
        const spec = collectionSpec(name);
        const values = props(props(collections[name]!["items"])["values"]);
        const attributes = spec.attributes ?? {};
        const expected = {
          ...Object.fromEntries(Object.entries(spec.fields).map(([f, k]) => [f, kindSchema(k)])),
          ...Object.fromEntries(Object.entries(attributes).map(([a, k]) => [`@${a}`, kindSchema(k)])),
          ...(spec.text === undefined ? {} : { "#text": kindSchema(spec.text) }),
        };
        expect(Object.fromEntries(Object.entries(values).map(([n, v]) => [n, withoutDescription(v)])), name).toEqual(expected);
      }
    });

    fcTest.prop([arbMessageStream(12), arbXmlStyle()], { numRuns: 20 })("every event of a random SIS stream validates", (messages, style) => {
      const h = new FlightHarness();
      messages.forEach((m, i) => h.send(messageToXml(m, i + 1, style)));
      for (const e of h.events.filter((e) => e.payload !== null)) {
        expect(schemaErrors("flight", e.payload), `${e.target} ${e.partitionKey} v${e.stateVersion}`).toEqual([]);
        expectComplete("flight", e.payload as object);
      }
    });

    it("every flight and reference event of the SIS fixtures validates", () => {
      const h = new FlightHarness();
      const files = readdirSync(new URL("../fixtures/sis/", import.meta.url)).filter((f) => f.endsWith(".xml")).sort();
      for (const f of files) h.send(fixture(f));
      const checked = h.events.filter((e) => e.payload !== null);
      expect([...new Set(checked.map((e) => e.target))].sort()).toEqual([Target.MSG, Target.REF, Target.SCHD].sort());
      for (const e of checked) expect(schemaErrors(schemaOfTarget(e.target), e.payload), `${e.target} ${e.partitionKey}`).toEqual([]);
    });

    const valid = {
      schemaVersion: 2, flid: "900101", ffid: null, operationDay: "20260305", stateVersion: 1, deleted: false, lastMsgId: 1,
      lastSrcDttm: "20260305020000",
      fields: { ALCD: "CZ", SODT: "2026-03-05T08:00", CNCL: null, REMC: "é".repeat(80) },
      collections: { DELY: [{ key: "81", values: { "@CODE": "81", "@DURA": "00:25", "#text": "ATC flow" } }], ERUT: [] },
    };
    it.each([
      ["schemaVersion 1", { ...valid, schemaVersion: 1 }],
      ["a non-digit flid", { ...valid, flid: "A1" }],
      ["stateVersion 0", { ...valid, stateVersion: 0 }],
      ["a missing ffid", (({ ffid: _f, ...rest }) => rest)(valid)],
      ["an unknown top-level name", { ...valid, extra: 1 }],
      ["an unknown field", { ...valid, fields: { ...valid.fields, ZZZZ: "x" } }],
      ["a time with seconds", { ...valid, fields: { SODT: "2026-03-05T08:00:00" } }],
      ["a time with an offset", { ...valid, fields: { ESTT: "2026-03-05T08:00+08:00" } }],
      ["an int with a leading zero", { ...valid, fields: { PAXC: "0180" } }],
      ["MVIN outside A/D", { ...valid, fields: { MVIN: "X" } }],
      ["a remark of 81 characters", { ...valid, fields: { REMC: "x".repeat(81) } }],
      ["untrimmed text", { ...valid, fields: { ALCD: " CZ" } }],
      ["a numeric value", { ...valid, fields: { PAXC: 180 } }],
      ["an unknown collection", { ...valid, collections: { XXXX: [] } }],
      ["a row without key", { ...valid, collections: { ROUT: [{ values: {} }] } }],
      ["an unknown row value", { ...valid, collections: { ROUT: [{ key: "1", values: { GATE: "A1" } }] } }],
      ["a day offset without sign", { ...valid, collections: { ERUT: [{ key: "1", values: { SADC: "1" } }] } }],
      ["a duration of 3 minutes digits", { ...valid, collections: { DELY: [{ key: "81", values: { "@DURA": "00:250" } }] } }],
      ["a VIPT key without its VIPF key", { ...valid, collections: { VIPT: [{ key: "S1", values: {} }] } }],
    ])("refuses %s", (_what, payload) => {
      expect(schemaErrors("flight", valid)).toEqual([]);
      expect(schemaErrors("flight", payload)).not.toEqual([]);
    });
  });

  describe("reference", () => {
    it("types the fields of every reference type as the model does", () => {
      const schema = eventSchema("reference");
      const defs = schema["$defs"] as Props;
      expect(props(schema)["type"]!["enum"], "reference.schema.json names every REFERENCE_SCHEMAS type: state a new one there").toEqual([...REFERENCE_SCHEMAS.keys()]);
      for (const t of REFERENCE_SCHEMAS.values()) {
        const fields = props(defs[t.type]);
        expect(Object.fromEntries(Object.entries(fields).map(([n, v]) => [n, v["$ref"]])), t.type).toEqual(
          Object.fromEntries(Object.entries(t.fields).map(([n, k]) => [n, `#/$defs/${k}`])),
        );
      }
    });

    /** One element of `kind` as SIS XML, any mix of empty, padded and repeated. */
    const text = fc.oneof(fc.constant(""), fc.string({ unit: fc.constantFrom(..."AZaz09 -/&<é中"), maxLength: 8 }));
    const elementXml = (name: string, kind: RefFieldKind): fc.Arbitrary<string> => {
      const one = (inner: fc.Arbitrary<string>) => inner.map((t) => `<${name}>${t}</${name}>`);
      const many = (inner: fc.Arbitrary<string>) => fc.array(inner, { maxLength: 3 }).map((xs) => xs.join(""));
      switch (kind) {
        case "text":
          return one(text.map(escapeXml));
        case "flag":
          return one(fc.constantFrom("Y", "y", "N", "X", ""));
        case "list":
          return many(one(text.map(escapeXml)));
        case "terminals":
          return many(fc.tuple(text, fc.constantFrom("A", "D", ""), fc.constantFrom("I", "D", "")).map(([t, m, f]) => `<${name} MVIN="${m}" FLIN="${f}">${escapeXml(t)}</${name}>`));
        case "rows":
          return many(fc.tuple(text, text).map(([c, n]) => `<${name}><CODE>${escapeXml(c)}</CODE><NAME>${escapeXml(n)}</NAME><NAMC/></${name}>`));
        case "abbreviations":
          return fc.subarray(["ABR1", "ABR2", "ABR6"]).chain((codes) =>
            fc.tuple(...codes.map((c) => text.map((t) => `<${name} CODE="${c}">${escapeXml(t)}</${name}>`))).map((xs) => xs.join("")),
          );
      }
    };
    const arbRecordXml = fc.constantFrom(...REFERENCE_SCHEMAS.values()).chain((t) =>
      fc
        .tuple(
          fc.stringMatching(/^[A-Za-z0-9]{1,6}$/),
          fc.tuple(...Object.entries(t.fields).map(([n, k]) => fc.option(elementXml(n, k), { nil: "" }))),
          // Elements the type's schema does not name: kept as text, a list, or a row of children.
          fc.array(fc.constantFrom("<XTRA>kept</XTRA>", "<XLST>a</XLST><XLST>b</XLST>", "<XROW><A>1</A><B/></XROW>", "<XNIL/>"), { maxLength: 2 }),
        )
        .map(([key, fields, extras]) => ({ type: t.type, xml: `<${t.type}><${t.key}>${key}</${t.key}>${fields.join("")}${[...new Set(extras)].join("")}</${t.type}>` })),
    );

    fcTest.prop([arbRecordXml], { numRuns: 150 })("the payload of any decoded reference record validates", ({ type, xml }) => {
      const decoded = decodeMessage(msg(type, "UPD", `<RECS>1</RECS>${xml}`));
      if (!decoded.ok || decoded.message.body.kind !== "reference") throw new Error(`not decoded: ${JSON.stringify(decoded)}`);
      for (const r of decoded.message.body.records) {
        const event = referenceEvent({ rtype: type, rkey: r.rkey, fields: r.fields, deleted: false, version: 3, msgId: 7 }, "20260305020000", Target.REF);
        expect(schemaErrors("reference", event.payload)).toEqual([]);
        expectComplete("reference", event.payload as object);
      }
    });

    const valid = { schemaVersion: 1, type: "AIRL", key: "K4", version: 1, lastMsgId: 1, lastSrcDttm: "20260305050000", fields: { ONAM: "KESTREL", TRML: [{ terminal: "T2", mvin: "A", flin: null }], XTRA: "kept" } };
    it.each([
      ["an unknown type", { ...valid, type: "ZZZZ" }],
      ["version 0", { ...valid, version: 0 }],
      ["a short lastSrcDttm", { ...valid, lastSrcDttm: "202603050500" }],
      ["the key element among the fields", { ...valid, fields: { ITOP: "K4" } }],
      ["a flag as text", { ...valid, type: "ABDG", fields: { ATHE: "Y" } }],
      ["a list of numbers", { ...valid, fields: { OGRP: [1] } }],
      ["a terminal without flin", { ...valid, fields: { TRML: [{ terminal: "T1", mvin: "A" }] } }],
      ["an abbreviation ABR7", { ...valid, type: "ARPT", fields: { ABBR: { ABR7: "x" } } }],
      ["an unknown element holding a number", { ...valid, fields: { XTRA: 1 } }],
      ["an unknown top-level name", { ...valid, fields: {}, extra: true }],
    ])("refuses %s", (_what, payload) => {
      expect(schemaErrors("reference", valid)).toEqual([]);
      expect(schemaErrors("reference", payload)).not.toEqual([]);
    });
  });

  describe("task-event", () => {
    const code = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/);
    const text = fc.string({ minLength: 1, maxLength: 256 });
    const arbTask = fc.record({
      taskId: fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
      ownerService: code,
      handlerCode: code,
      bizType: text,
      bizId: text,
      externalSystem: text,
      externalTaskType: fc.option(text, { nil: null }),
      payload: fc.dictionary(fc.string(), fc.jsonValue()),
    });
    const arbExtras = fc.record(
      { reason: fc.option(fc.string(), { nil: null }), progress: fc.option(fc.string({ maxLength: 2000 }), { nil: null }), version: fc.integer({ min: 1, max: 1_000 }) },
      { requiredKeys: [] },
    );

    fcTest.prop([arbTask, fc.constantFrom(...Object.values(TaskEventType)), fc.string({ minLength: 1 }), fc.integer({ min: 0, max: 4_102_444_800_000 }), arbExtras])(
      "the message of any task and transition validates",
      (input, type, externalEventId, at, extras) => {
        // Only a TASK_OVERDUE carries its reason and the two times it was judged by (the overdue job gives them).
        const overdue = type === TaskEventType.TASK_OVERDUE;
        const message = taskEventMessage(newTaskRecord(input, at, "T202607130001"), type, externalEventId, at, overdue ? { ...extras, overdueReason: "HEARTBEAT" } : extras);
        expect(schemaErrors("task-event", message)).toEqual([]);
        expectComplete("task-event", message, overdue ? [] : ["overdueReason", "deadlineAt", "lastProgressAt"]);
      },
    );

    const valid = taskEventMessage(
      newTaskRecord({ taskId: "T1", ownerService: "LMS", handlerCode: "H1", bizType: "B", bizId: "1", externalSystem: "ACS" }, 0, "T202607130001"),
      TaskEventType.TASK_FINISHED, "fb-1", 0,
    );
    it.each([
      ["schemaVersion 2", { ...valid, schemaVersion: 2 }],
      ["an unknown eventType", { ...valid, eventType: "TASK_LOST" }],
      ["an eventId without version", { ...valid, eventId: "T1" }],
      ["an ownerService with a space", { ...valid, ownerService: "L MS" }],
      ["an empty bizId", { ...valid, bizId: "" }],
      ["a local occurredAt", { ...valid, occurredAt: "2026-03-05T08:00:00.000" }],
      ["a payload that is an array", { ...valid, payload: [] }],
      ["a progress of 2001 characters", { ...valid, progress: "x".repeat(2001) }],
      ["a missing reason", (({ reason: _r, ...rest }) => rest)(valid)],
      ["an unknown name", { ...valid, owner: "LMS" }],
    ])("refuses %s", (_what, payload) => {
      expect(schemaErrors("task-event", valid)).toEqual([]);
      expect(schemaErrors("task-event", payload)).not.toEqual([]);
    });

    it("accepts a record from before TASK_EXECUTING, which has no progress", () => {
      const { progress: _p, ...old } = valid;
      expect(schemaErrors("task-event", old)).toEqual([]);
    });
  });

  describe("task-callback (an owner's report on the result topic)", () => {
    const arbCallback = fc.record({
      taskId: fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
      version: fc.integer({ min: 1, max: 1_000 }),
      result: fc.constantFrom(...Object.values(TaskCallbackResult)),
      message: fc.option(fc.string(), { nil: undefined }),
      owner: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/),
    });

    fcTest.prop([arbCallback])("the record resultTopicCallbackPort publishes validates", async ({ taskId, version, result, message, owner }) => {
      const sent: DeliveryRecord[] = [];
      const port = resultTopicCallbackPort({ send: async (records) => (sent.push(...records), records.map(() => null)) }, "TASK_CALLBACK_RESULT_TOPIC", owner);
      await port.report({ taskId, eventId: taskEventId(taskId, version), result, ...(message === undefined ? {} : { message }) });
      expect(sent).toHaveLength(1);
      expect(schemaErrors("task-callback", sent[0]!.value)).toEqual([]);
      expectComplete("task-callback", JSON.parse(sent[0]!.value!) as object);
    });

    const valid = { schemaVersion: 1, taskId: "T1", eventId: "T1#3", result: "SUCCESS", message: null, ownerService: "LMS" };
    it.each([
      ["schemaVersion 2", { ...valid, schemaVersion: 2 }],
      ["a result outside SUCCESS/FAILURE", { ...valid, result: "DONE" }],
      ["an eventId without version", { ...valid, eventId: "T1" }],
      ["a missing message", (({ message: _m, ...rest }) => rest)(valid)],
      ["an unknown name", { ...valid, handlerCode: "H1" }],
    ])("refuses %s", (_what, payload) => {
      expect(schemaErrors("task-callback", valid)).toEqual([]);
      expect(schemaErrors("task-callback", payload)).not.toEqual([]);
    });
  });

  describe("reliable-message and its dead letter", () => {
    const optional = (max: number) => fc.option(fc.string({ maxLength: max }), { nil: null });
    const arbMessage = fc
      .record({
        messageId: fc.string({ minLength: 1, maxLength: 128 }).filter((s) => !/[\u0000-\u001f\u007f]/.test(s)),
        body: fc.string(),
        consumerQueue: fc.stringMatching(/^[A-Za-z0-9._-]{1,100}$/),
        dataType: optional(50),
        field1: optional(200),
        field2: optional(200),
        field3: optional(200),
        headers: fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 100 }).filter((s) => !/[\u0000-\u001f\u007f]/.test(s)), fc.string({ maxLength: 1000 }), { maxKeys: 20 }), { nil: null }),
        sendCount: fc.integer({ min: 1, max: 50 }),
        createdAt: fc.integer({ min: 0, max: 4_102_444_800_000 }),
        lastSentAt: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: null }),
        lastError: fc.option(fc.string(), { nil: null }),
        key: fc.option(fc.string({ minLength: 1, maxLength: 128 }).filter((s) => !/[\u0000-\u001f\u007f]/.test(s)), { nil: null }),
      })
      .map((m): ReliableMessage => {
        const draft = checkReliableMessageDraft(m);
        return {
          ...draft,
          version: m.sendCount + 1, status: ReliableMessageStatus.SENDING, sendCount: m.sendCount, dead: false, checkCount: 0, nextCheckAt: null,
          lastSentAt: m.lastSentAt, createdAt: m.createdAt, updatedAt: m.createdAt, confirmedAt: m.createdAt, deliverAt: null, orderSeq: null, lastEventId: null, rejectCount: 0,
          rejectedAt: null, lastError: m.lastError,
        };
      });

    fcTest.prop([arbMessage, fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{1,50}$/), { nil: undefined })])("the envelope of every send and the dead letter validate, to a queue or to one of its subscriptions", (message, subscription) => {
      // Only a subscription's records carry `subscription`.
      const absent = subscription === undefined ? ["subscription"] : [];
      const send = sendDraft(message, subscription).payload as object;
      expect(schemaErrors("reliable-message", send)).toEqual([]);
      expectComplete("reliable-message", send, absent);
      const dead = deadLetterDraft(message, subscription).payload as object;
      expect(schemaErrors("reliable-message-dead-letter", dead)).toEqual([]);
      expectComplete("reliable-message-dead-letter", dead, absent);
      // Each is only what it is: a send is no dead letter, a dead letter no send.
      expect(schemaErrors("reliable-message-dead-letter", send)).not.toEqual([]);
      expect(schemaErrors("reliable-message", dead)).not.toEqual([]);
    });

    const valid = envelopeOf({
      ...checkReliableMessageDraft({ messageId: "pay-42", body: "{}", consumerQueue: "accounting" }),
      version: 2, status: ReliableMessageStatus.SENDING, sendCount: 1, dead: false, checkCount: 0, nextCheckAt: null, lastSentAt: 5, createdAt: 1, updatedAt: 5,
      confirmedAt: 5, deliverAt: null, orderSeq: null, lastEventId: null, rejectCount: 0, rejectedAt: null, lastError: null,
    });
    it.each([
      ["another envelope schema", { ...valid, schema: "msgx.reliable-message/2" }],
      ["an empty messageId", { ...valid, messageId: "" }],
      ["a messageId with a newline", { ...valid, messageId: "a\nb" }],
      ["a queue name with a space", { ...valid, consumerQueue: "a b" }],
      ["a body that is an object", { ...valid, body: {} }],
      ["sendCount 0", { ...valid, sendCount: 0 }],
      ["sentAt as an ISO text", { ...valid, sentAt: "2026-03-05T08:00:00Z" }],
      ["a header that is a number", { ...valid, headers: { a: 1 } }],
      ["a missing field2", (({ field2: _f, ...rest }) => rest)(valid)],
      ["an unknown name", { ...valid, priority: 1 }],
    ])("refuses %s", (_what, payload) => {
      expect(schemaErrors("reliable-message", valid)).toEqual([]);
      expect(schemaErrors("reliable-message", payload)).not.toEqual([]);
    });

    it("accepts an envelope from before headers existed; a dead letter needs its reason", () => {
      const { headers: _h, ...old } = valid;
      expect(schemaErrors("reliable-message", old)).toEqual([]);
      expect(schemaErrors("reliable-message-dead-letter", { ...valid, deadReason: "never acknowledged after 6 sends" })).toEqual([]);
      expect(schemaErrors("reliable-message-dead-letter", { ...valid, deadReason: 5 })).not.toEqual([]);
    });
  });

  it("validates a record value as read from Kafka (JSON text or bytes)", () => {
    const draft: OutboxEventDraft = referenceEvent({ rtype: "GLST", rkey: "G1", fields: { GTNM: "gate 1" }, deleted: false, version: 1, msgId: 1 }, "20260305020000", Target.REF);
    const text = JSON.stringify(draft.payload);
    expect(schemaErrors("reference", text)).toEqual([]);
    expect(schemaErrors("reference", Buffer.from(text))).toEqual([]);
    expect(schemaErrors("reference", text.replace('"GLST"', '"NOPE"'))).not.toEqual([]);
  });
});
