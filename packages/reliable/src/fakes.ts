/**
 * `@msgx/reliable/fakes`: the in-memory reliable-message store and consume log. Plain code with no
 * test framework behind it (ESM and CommonJS); the contract suites are in `@msgx/reliable/testing`.
 */
export { InMemoryReliableMessageStore } from "./in-memory-reliable-message-store.js";
export { InMemoryConsumeLog, type InMemoryConsumerTx } from "./in-memory-consume-log.js";
