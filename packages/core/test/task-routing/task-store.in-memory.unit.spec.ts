import { InMemoryTaskStore } from "../../src/task-routing/in-memory-task-store.js";
import { describeTaskStoreContract } from "../../src/task-routing/task-store.contract.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

describeTaskStoreContract("InMemoryTaskStore", async () => {
  const clock = new ManualClock();
  const pipeline = new InMemoryPipelineStore(clock);
  return {
    store: new InMemoryTaskStore(clock, pipeline),
    outboxEvents: async () => [...pipeline.tables.events].sort((a, b) => a.eventId - b.eventId),
    close: async () => undefined,
  };
});
