/**
 * Reference data on a real broker (issue 17, WIRE.md "Reference data", docs/events.md "Reference
 * events"): reference messages go through the real Pump (on the fakes) and the reference
 * processor into the outbox, a `MsgDispatcher` for `KAFKA:ref` sends them with the Kafka delivery
 * port to a topic `ensureTopics` created compacted, and a real consumer reads them back: keys
 * `<TYPE>:<KEY>`, full records as values, null-value tombstones for deletes, a DNLD replacing a
 * whole type (the keys it omits tombstoned), and the event headers.
 */
import { Kafka, logLevel } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeMessage, MsgDispatcher, MsgxError, Pump, referenceProcessor, silentLogger, Target } from "@msgx/core";
import { InMemoryMailbox, InMemoryOutboxStore, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { KafkaDeliveryPort, ensureTopics } from "@msgx/adapters-kafka";
import { schemaErrors } from "../../core/test/schemas/event-schemas.js";
import { kafkaAvailability } from "./kafka-available.js";
import { consume, createTopics, uniqueTopic, type Consumed } from "./kafka-test-kit.js";

const kafka = await kafkaAvailability("@msgx/adapters-kafka reference topic integration suite");

let seqn = 610_300;
const ref = (type: string, styp: string, records: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><MSG xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation = "unisysaodbsis.xsd">` +
  `<META><SNDR>AODB</SNDR><SEQN>${seqn++}</SEQN><DTTM>20260305050000</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META><RECS>9</RECS>${records}</MSG>`;
const glst = (code: string, name: string) => `<GLST><GCOD>${code}</GCOD><GTNM>${name}</GTNM><GTML>T2</GTML></GLST>`;

const header = (m: Consumed, name: string): string | undefined => m.headers?.[name]?.toString();

describe.skipIf(!kafka.available)("the reference topic on a real broker", () => {
  const client = new Kafka({ clientId: "msgx-it-ref", brokers: [...kafka.brokers], logLevel: logLevel.NOTHING });
  const admin = client.admin();
  const topics: string[] = [];
  let port: KafkaDeliveryPort;
  const topic = (prefix: string) => {
    const t = uniqueTopic(prefix);
    topics.push(t);
    return t;
  };

  beforeAll(async () => {
    await admin.connect();
    port = new KafkaDeliveryPort({ brokers: kafka.brokers, clientId: "msgx-it-ref-port" });
    await port.connect();
  });

  afterAll(async () => {
    await port?.disconnect();
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
  });

  it("ensureTopics creates the reference topic compacted, refuses one without compaction and a name shared with msg or schd", async () => {
    const [msg, schd, refTopic] = [topic("msg"), topic("schd"), topic("ref")];
    expect(await ensureTopics(admin, { msgTopic: msg, schdTopic: schd, refTopic, partitions: 3 })).toEqual({ created: [msg, schd, refTopic], existing: [] });
    // Run again, it finds them and checks each compacted topic's policy: the created one passes.
    expect(await ensureTopics(admin, { msgTopic: msg, schdTopic: schd, refTopic, partitions: 3 })).toEqual({ created: [], existing: [msg, schd, refTopic] });

    const plain = topic("plain-ref");
    await createTopics(admin, [plain], 1);
    const refused = await ensureTopics(admin, { msgTopic: msg, schdTopic: schd, refTopic: plain, partitions: 1 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MsgxError);
    expect((refused as MsgxError).kind).toBe("CONFIG");
    await expect(ensureTopics(admin, { msgTopic: msg, schdTopic: schd, refTopic: schd, partitions: 1 })).rejects.toThrow(/distinct topics/);
  });

  it("publishes every reference change: keys <TYPE>:<KEY>, full records, tombstones, and a DNLD replacing a whole type", async () => {
    const refTopic = topic("ref-pipeline");
    await ensureTopics(admin, { msgTopic: topic("msg-p"), schdTopic: topic("schd-p"), refTopic, partitions: 3 });

    const clock = new ManualClock();
    const mailbox = new InMemoryMailbox(clock);
    const store = new InMemoryPipelineStore(clock);
    const raws = [
      ref("GLST", "DNLD", glst("A1", "GATE A1") + glst("A2", "GATE A2") + glst("A3", "GATE A3")),
      ref("GLST", "UPD", glst("A1", "GATE A1 NORTH")),
      ref("GLST", "DEL", "<GLST><GCOD>A3</GCOD></GLST>"),
      // Replaces the type: A1 unchanged (publishes nothing), A4 new, A2 omitted (tombstoned).
      ref("GLST", "DNLD", glst("A1", "GATE A1 NORTH") + glst("A4", "GATE A4")),
      ref("AIRL", "ADD", '<AIRL><ITOP>K4</ITOP><ONMC>红隼货运</ONMC><TRML MVIN="A" FLIN="I">T2</TRML><OGRP>SKY</OGRP></AIRL>'),
    ];
    const ids = raws.map((r) => mailbox.insert(r));
    await store.enqueue(ids.map((msgId) => ({ msgId, receivedAt: clock.now() })), { horizon: Math.max(...ids) });
    const pump = new Pump({
      store,
      mailbox,
      clock,
      logger: silentLogger,
      decode: (raw) => decodeMessage(raw),
      processors: { reference: referenceProcessor() },
      horizon: () => Math.max(...ids),
    });
    for (let i = 0; i < 10 && (await pump.step()).did === "processed"; i++);
    expect(ids.map((id) => store.tables.records.get(id)?.status)).toEqual(Array(5).fill("SUCCEEDED"));

    const dispatcher = new MsgDispatcher({ outbox: new InMemoryOutboxStore(store), delivery: port, clock, logger: silentLogger }, { target: Target.REF, topics: { [Target.REF]: refTopic } });
    for (let i = 0; i < 10 && (await dispatcher.step()).did === "sent"; i++);

    const got = await consume(client, [refTopic], 8);
    const byKey = (key: string) => got.filter((m) => m.key === key);
    expect(new Set(got.map((m) => m.key))).toEqual(new Set(["GLST:A1", "GLST:A2", "GLST:A3", "GLST:A4", "AIRL:K4"]));
    // One partition per key, so each key's records arrive in their version order.
    const versions = (key: string) => byKey(key).map((m) => `${header(m, "msgx-event-type")}@${header(m, "msgx-state-version")}`);
    expect(versions("GLST:A1")).toEqual(["UPSERT@1", "UPSERT@2"]);
    expect(versions("GLST:A2")).toEqual(["UPSERT@1", "TOMBSTONE@2"]);
    expect(versions("GLST:A3")).toEqual(["UPSERT@1", "TOMBSTONE@2"]);
    expect(versions("GLST:A4")).toEqual(["UPSERT@1"]);
    expect(byKey("GLST:A2")[1]?.value).toBeNull();
    expect(byKey("GLST:A3")[1]?.value).toBeNull();
    expect(header(byKey("GLST:A2")[1]!, "msgx-source-msg-id")).toBe(String(ids[3]));
    expect(JSON.parse(byKey("GLST:A1")[1]!.value!)).toStrictEqual({
      schemaVersion: 1,
      type: "GLST",
      key: "A1",
      version: 2,
      lastMsgId: ids[1],
      lastSrcDttm: "20260305050000",
      fields: { GTNM: "GATE A1 NORTH", GTML: "T2" },
    });
    expect(JSON.parse(byKey("AIRL:K4")[0]!.value!).fields).toStrictEqual({ ONMC: "红隼货运", TRML: [{ terminal: "T2", mvin: "A", flin: "I" }], OGRP: ["SKY"] });
    // Every value read back is a reference payload of the published schema.
    for (const m of got.filter((m) => m.value !== null)) expect(schemaErrors("reference", m.value), m.key ?? "").toEqual([]);
    // Every record carries its outbox event id, distinct: consumers dedupe on it.
    expect(new Set(got.map((m) => header(m, "msgx-event-id"))).size).toBe(8);

    // What a compacting consumer keeps: the last record per key.
    const latest = new Map(got.map((m) => [m.key, m.value]));
    expect([...latest].filter(([, v]) => v !== null).map(([k]) => k).sort()).toEqual(["AIRL:K4", "GLST:A1", "GLST:A4"]);
  });
});
