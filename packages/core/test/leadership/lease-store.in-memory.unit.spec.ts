import { InMemoryLeaseStore } from "../../src/leadership/in-memory-lease-store.js";
import { describeLeaseStoreContract } from "../../src/leadership/lease-store.contract.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

describeLeaseStoreContract("InMemoryLeaseStore", () => {
  const clock = new ManualClock();
  const store = new InMemoryLeaseStore(clock);
  return {
    store,
    now: async () => clock.now(),
    lapse: async () => {
      if (store.row.until >= clock.now()) clock.set(store.row.until + 1);
    },
    close: async () => undefined,
  };
});
