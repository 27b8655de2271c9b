import { describeTaskConsumeLogStoreContract } from "../src/task-consume-log-store.contract.js";
import { InMemoryTaskConsumeLogStore, type InMemoryTaskTxHandle } from "../src/in-memory-task-consume-log-store.js";

describeTaskConsumeLogStoreContract<InMemoryTaskTxHandle>("InMemoryTaskConsumeLogStore", async () => {
  const markers: string[] = [];
  return {
    store: new InMemoryTaskConsumeLogStore(),
    writeMarker: async (tx, key) => tx.stage(() => markers.push(key)),
    markers: async () => [...markers].sort(),
    close: async () => undefined,
  };
});
