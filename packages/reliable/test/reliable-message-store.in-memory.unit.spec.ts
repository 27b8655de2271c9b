import { describeReliableMessageStoreContract } from "../src/reliable-message-store.contract.js";
import { InMemoryReliableMessageStore } from "../src/in-memory-reliable-message-store.js";
import { InMemoryPipelineStore } from "@msgx/core/fakes";
import { ManualClock } from "@msgx/core/fakes";

describeReliableMessageStoreContract("InMemoryReliableMessageStore", async () => {
  const clock = new ManualClock();
  const database = new InMemoryPipelineStore(clock);
  return {
    store: new InMemoryReliableMessageStore(clock, database),
    outboxRows: async () => [...database.tables.events].sort((a, b) => a.eventId - b.eventId),
    close: async () => undefined,
  };
});
