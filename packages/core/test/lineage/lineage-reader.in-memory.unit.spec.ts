import { describe, expect, it } from "vitest";
import { isOutage } from "../../src/errors/msgx-error.js";
import { InMemoryOutboxStore } from "../../src/delivery/in-memory-outbox-store.js";
import { InMemoryMaintenanceStore } from "../../src/jobs/in-memory-maintenance-store.js";
import { InMemoryLineageReader } from "../../src/lineage/in-memory-lineage-reader.js";
import { describeLineageReaderContract } from "../../src/lineage/lineage-reader.contract.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

describeLineageReaderContract("in-memory", async () => {
  const clock = new ManualClock();
  const store = new InMemoryPipelineStore(clock);
  return {
    reader: new InMemoryLineageReader(store),
    store,
    outbox: new InMemoryOutboxStore(store),
    maintenance: new InMemoryMaintenanceStore(store, clock),
    close: async () => {},
  };
});

describe("InMemoryLineageReader", () => {
  it("is down whenever the pipeline store is down (one database)", async () => {
    const store = new InMemoryPipelineStore(new ManualClock());
    store.faults.setDown(true);
    await expect(new InMemoryLineageReader(store).flightLineage("900101", { limit: 5 })).rejects.toSatisfy(isOutage);
  });
});
