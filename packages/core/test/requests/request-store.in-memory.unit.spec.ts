import { systemClock } from "../../src/runtime/clock.js";
import { InMemoryOutboundMailbox } from "../../src/ports/in-memory-outbound-mailbox.js";
import { InMemoryReferenceReader } from "../../src/requests/in-memory-reference-reader.js";
import { InMemoryRequestStore } from "../../src/requests/in-memory-request-store.js";
import { describeOutboundMailboxContract } from "../../src/ports/outbound-mailbox.contract.js";
import { describeRequestStoreContract } from "../../src/processing/request-store.contract.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

describeRequestStoreContract("in-memory (over the InMemoryPipelineStore's tables)", async () => {
  const pipeline = new InMemoryPipelineStore(new ManualClock());
  return {
    requests: new InMemoryRequestStore(pipeline),
    pipeline,
    references: new InMemoryReferenceReader(pipeline.tables.requestTables),
    close: async () => {},
  };
});

describeOutboundMailboxContract("in-memory", async () => ({ outbound: new InMemoryOutboundMailbox(systemClock), close: async () => {} }));
