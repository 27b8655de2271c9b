import { describe, expect, it } from "vitest";
import { isOutage } from "../../src/errors/msgx-error.js";
import { Target } from "../../src/outbox/outbox-event.js";
import { InMemoryOutboxStore } from "../../src/delivery/in-memory-outbox-store.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";
import { describeOutboxStoreContract } from "../../src/delivery/outbox-store.contract.js";
import { msgDraft } from "./delivery-world.js";

describeOutboxStoreContract("in-memory", async () => {
  const outbox = new InMemoryOutboxStore(new InMemoryPipelineStore(new ManualClock()));
  return { outbox, seed: (events) => outbox.append(events), close: async () => {} };
});

describe("InMemoryOutboxStore", () => {
  it("reads the rows the pipeline's transactions wrote", async () => {
    const store = new InMemoryPipelineStore(new ManualClock());
    const outbox = new InMemoryOutboxStore(store);
    const rows = await outbox.append([msgDraft("F1", 1), msgDraft("F2", 1)]);
    expect(rows.map((e) => e.eventId)).toEqual([1, 2]);
    expect(store.tables.events).toHaveLength(2);
    expect((await outbox.pending(Target.MSG, 0, 10)).map((e) => e.eventId)).toEqual([1, 2]);
  });

  it("is down whenever the pipeline store is down (one database)", async () => {
    const store = new InMemoryPipelineStore(new ManualClock());
    const outbox = new InMemoryOutboxStore(store);
    await outbox.append([msgDraft("F1", 1)]);
    store.faults.setDown(true);
    await expect(outbox.pending(Target.MSG, 0, 10)).rejects.toSatisfy(isOutage);
    await expect(outbox.markSent([1], 0)).rejects.toSatisfy(isOutage);
    store.faults.setDown(false);
    store.faults.failNext("outbox.markSent", 1, "DEPENDENCY_UNAVAILABLE");
    await expect(outbox.markSent([1], 0)).rejects.toSatisfy(isOutage);
    await outbox.markSent([1], 0);
    expect(await outbox.countPending(Target.MSG)).toBe(0);
  });
});
