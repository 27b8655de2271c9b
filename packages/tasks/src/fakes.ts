/**
 * `@msgx/tasks/fakes`: the in-memory implementation of every task port. Plain code with no test
 * framework behind it (ESM and CommonJS); the contract suites are in `@msgx/tasks/testing`.
 */
export { InMemoryTaskStore, type InMemoryTaskTables } from "./in-memory-task-store.js";
export { InMemoryTaskConsumeLogStore, type InMemoryTaskTxHandle } from "./in-memory-task-consume-log-store.js";
export { InMemoryTaskDispatcher, type FakeExternalTask, type ScriptedDispatchFault } from "./in-memory-task-dispatcher.js";
