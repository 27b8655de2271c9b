import { describeConsumeLogStoreContract } from "../../src/task-routing/consume-log-store.contract.js";
import { InMemoryConsumeLogStore, type InMemoryTxHandle } from "../../src/task-routing/in-memory-consume-log-store.js";

describeConsumeLogStoreContract<InMemoryTxHandle>("InMemoryConsumeLogStore", async () => {
  const markers: string[] = [];
  return {
    store: new InMemoryConsumeLogStore(),
    writeMarker: async (tx, key) => tx.stage(() => markers.push(key)),
    markers: async () => [...markers].sort(),
    close: async () => undefined,
  };
});
