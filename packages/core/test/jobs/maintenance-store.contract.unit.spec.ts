import { InMemoryOutboxStore, ManualClock } from "@msgx/core/testing";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { InMemoryMaintenanceStore } from "../../src/jobs/in-memory-maintenance-store.js";
import { describeMaintenanceStoreContract } from "../../src/jobs/maintenance-store.contract.js";

describeMaintenanceStoreContract("InMemoryMaintenanceStore", async () => {
  const clock = new ManualClock();
  const pipeline = new InMemoryPipelineStore(clock);
  const store = new InMemoryMaintenanceStore(pipeline, clock);
  return {
    store,
    pipeline,
    outbox: new InMemoryOutboxStore(pipeline),
    bumpEpoch: async () => ++pipeline.tables.epoch,
    logSnapshots: async (at) => {
      for (const loggedAt of at) store.logSnapshot(1, loggedAt);
    },
    snapLogCount: async () => pipeline.tables.snapLog.length,
    close: async () => undefined,
  };
});
