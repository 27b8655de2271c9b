import { describe, expect, it } from "vitest";
import { isMsgxError, isOutage } from "../../src/errors/msgx-error.js";
import type { DeliveryRecord } from "../../src/ports/delivery-port.js";
import { InMemoryBroker } from "../../src/ports/in-memory-broker.js";
import { describeDeliveryPortContract } from "../../src/ports/delivery-port.contract.js";

describeDeliveryPortContract("InMemoryBroker", async () => {
  const port = new InMemoryBroker();
  return {
    port,
    topics: ["msg", "schd"],
    readBack: async (topics) => topics.flatMap((t) => port.records(t).map((r) => ({ ...r, partition: 0 }))),
    fenced: (fencing) => port.producer(fencing),
    close: async () => {},
  };
}, { fencing: true });

const rec = (key: string, value: string | null = key, topic = "msg"): DeliveryRecord => ({ topic, key, value, headers: { "msgx-event-id": key } });
const keys = (b: InMemoryBroker, topic = "msg") => b.records(topic).map((r) => r.key);

describe("InMemoryBroker", () => {
  it("appends each call's records in order with per-topic offsets", async () => {
    const b = new InMemoryBroker();
    expect(await b.send([rec("a"), rec("b"), rec("x", null, "schd")])).toEqual([0, 1, 0].map((offset) => ({ partition: 0, offset })));
    expect(await b.send([rec("c")])).toEqual([{ partition: 0, offset: 2 }]);
    expect(keys(b)).toEqual(["a", "b", "c"]);
    expect(b.records("msg").map((r) => r.offset)).toEqual([0, 1, 2]);
    expect(b.records("schd")).toEqual([{ topic: "schd", key: "x", value: null, headers: { "msgx-event-id": "x" }, offset: 0 }]);
    expect(b.calls).toBe(2);
  });

  it("down: throws DEPENDENCY_UNAVAILABLE and appends nothing", async () => {
    const b = new InMemoryBroker();
    b.faults.setDown(true);
    await expect(b.send([rec("a")])).rejects.toSatisfy(isOutage);
    expect(keys(b)).toEqual([]);
    b.faults.setDown(false);
    await b.send([rec("a")]);
    expect(keys(b)).toEqual(["a"]);
  });

  it("loseNextAcks: appends, then throws an outage, so the resend duplicates", async () => {
    const b = new InMemoryBroker();
    b.loseNextAcks(2);
    await expect(b.send([rec("a"), rec("b")])).rejects.toSatisfy(isOutage);
    await expect(b.send([rec("a"), rec("b")])).rejects.toSatisfy(isOutage);
    await b.send([rec("a"), rec("b")]);
    expect(keys(b)).toEqual(["a", "b", "a", "b", "a", "b"]);
  });

  it("failRecords: refuses a matching record with a non-outage fault, after appending the records ahead of it", async () => {
    const b = new InMemoryBroker();
    const heal = b.failRecords((r) => r.key === "c");
    const err = await b.send([rec("a"), rec("b"), rec("c"), rec("d")]).catch((e: unknown) => e);
    expect(isMsgxError(err) && !isOutage(err) && err.kind === "INFRA").toBe(true);
    expect(keys(b)).toEqual(["a", "b"]);
    heal();
    await b.send([rec("c"), rec("d")]);
    expect(keys(b)).toEqual(["a", "b", "c", "d"]);
  });

  it("an aborted send is an outage and appends nothing", async () => {
    const b = new InMemoryBroker();
    const ac = new AbortController();
    ac.abort();
    await expect(b.send([rec("a")], ac.signal)).rejects.toSatisfy(isOutage);
    expect(keys(b)).toEqual([]);
  });
});
