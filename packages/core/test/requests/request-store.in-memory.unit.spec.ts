import { systemClock } from "../../src/ports/clock.js";
import { InMemoryOutboundMailbox } from "../../src/requests/in-memory-outbound-mailbox.js";
import { InMemoryReferenceReader } from "../../src/requests/in-memory-reference-reader.js";
import { InMemoryRequestStore } from "../../src/requests/in-memory-request-store.js";
import { describeOutboundMailboxContract } from "../../src/requests/outbound-mailbox.contract.js";
import { describeRequestStoreContract } from "../../src/requests/request-store.contract.js";
import { InMemoryPipelineStore } from "../../src/testing/in-memory-pipeline-store.js";
import { ManualClock } from "../../src/testing/manual-clock.js";

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
