/**
 * `@msgx/tasks/testing`: the contract suite of every task port, for an adapter to prove it conforms.
 * They need vitest, so this entry is ESM-only; it re-exports `@msgx/tasks/fakes`.
 */
export * from "./fakes.js";
export { describeTaskStoreContract } from "./task-store.contract.js";
export { sampleNewTask, type TaskStoreContractSubject } from "./task-store-contract-fixtures.js";
export { describeTaskDispatcherContract, type TaskDispatcherContractSubject } from "./task-dispatcher.contract.js";
export { describeTaskConsumeLogStoreContract, sampleTaskConsumeWrite, type TaskConsumeLogStoreContractSubject } from "./task-consume-log-store.contract.js";
