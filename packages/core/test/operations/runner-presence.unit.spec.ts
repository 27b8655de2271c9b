import { describeRunnerPresenceContract } from "../../src/operations/runner-presence.contract.js";
import { InMemoryRunnerPresence } from "../../src/operations/in-memory-runner-presence.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

describeRunnerPresenceContract("in-memory", () => {
  const clock = new ManualClock();
  const store = new InMemoryRunnerPresence(clock);
  return {
    store,
    age: async (runnerId, ms) => store.age(runnerId, ms),
    close: async () => {},
  };
});
