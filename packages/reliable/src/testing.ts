/**
 * `@msgx/reliable/testing`: the contract suites of the reliable-message ports, for an adapter to prove
 * it conforms. They need vitest, so this entry is ESM-only; it re-exports `@msgx/reliable/fakes`.
 */
export * from "./fakes.js";
export { describeReliableMessageStoreContract, sampleReliableMessage, type ReliableMessageStoreContractSubject } from "./reliable-message-store.contract.js";
export { describeConsumeLogContract, type ConsumeLogContractSubject } from "./consume-log.contract.js";
