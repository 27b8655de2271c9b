import { InMemoryTaskStore } from "../src/in-memory-task-store.js";
import { describeTaskStoreContract } from "../src/task-store.contract.js";
import { InMemoryPipelineStore } from "@msgx/core/fakes";
import { ManualClock } from "@msgx/core/fakes";

describeTaskStoreContract("InMemoryTaskStore", async () => {
  const clock = new ManualClock();
  const pipeline = new InMemoryPipelineStore(clock);
  return {
    store: new InMemoryTaskStore(clock, pipeline),
    bumpEpoch: async () => ++pipeline.tables.epoch,
    outboxEvents: async () => [...pipeline.tables.events].sort((a, b) => a.eventId - b.eventId),
    close: async () => undefined,
  };
});
