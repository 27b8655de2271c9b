import { describeReliableMessageStoreContract } from "../../src/reliable-message/reliable-message-store.contract.js";
import { InMemoryReliableMessageStore } from "../../src/reliable-message/in-memory-reliable-message-store.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

describeReliableMessageStoreContract("InMemoryReliableMessageStore", async () => {
  const clock = new ManualClock();
  const database = new InMemoryPipelineStore(clock);
  return {
    store: new InMemoryReliableMessageStore(clock, database),
    outboxRows: async () => [...database.tables.events].sort((a, b) => a.eventId - b.eventId),
    close: async () => undefined,
  };
});
