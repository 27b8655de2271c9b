import { InMemoryThroughputReader } from "../../src/operations/in-memory-throughput-reader.js";
import { describeThroughputReaderContract } from "../../src/operations/throughput-reader.contract.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { newProcRecord } from "../../src/processing/proc-machine.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

describeThroughputReaderContract("in-memory", () => {
  const store = new InMemoryPipelineStore(new ManualClock());
  return {
    reader: new InMemoryThroughputReader(store),
    seed: async (records, events) => {
      for (const r of records) {
        const record = { ...newProcRecord(r.msgId, r.updatedAt - 5, r.updatedAt, null), status: r.status, updatedAt: r.updatedAt };
        if (r.archived) store.archive.set(r.msgId, { record, archivedAt: r.updatedAt + 1 });
        else store.tables.records.set(r.msgId, record);
      }
      for (const e of events) {
        const eventId = store.insertEvent({ target: "MSG", partitionKey: "k", eventType: "UPSERT", stateVersion: 1, payload: {}, sourceMsgId: 1 }, 0);
        const i = store.tables.events.findIndex((x) => x.eventId === eventId);
        store.tables.events[i] = { ...store.tables.events[i]!, status: e.sentAt === null ? "PENDING" : "SENT", sentAt: e.sentAt };
      }
    },
    close: async () => {},
  };
});
