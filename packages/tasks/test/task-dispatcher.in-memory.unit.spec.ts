import { InMemoryTaskDispatcher } from "../src/in-memory-task-dispatcher.js";
import { describeTaskDispatcherContract } from "../src/task-dispatcher.contract.js";

describeTaskDispatcherContract("InMemoryTaskDispatcher", async () => {
  const dispatcher = new InMemoryTaskDispatcher();
  return {
    dispatcher,
    scriptNext: async (fault, reason) => dispatcher.script(fault, reason),
    setDown: async (down) => {
      dispatcher.down = down;
    },
    finish: async (taskId) => dispatcher.finish(taskId),
    close: async () => undefined,
  };
});
