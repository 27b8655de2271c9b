import { describe, expect, it } from "vitest";
import { emptyRunDecision } from "@msgx/core";
import {
  describeMailboxContract,
  sampleFlight,
  describePipelineStoreContract,
  InMemoryMailbox,
  InMemoryPipelineStore,
  ManualClock,
  type MailboxHarness,
} from "@msgx/core/testing";

const mailboxHarness = (onlyValid: boolean) => async (): Promise<MailboxHarness> => {
  const mailbox = new InMemoryMailbox(new ManualClock(), { onlyValid });
  return {
    mailbox,
    insert: async (raw, o) => mailbox.insert(raw, o?.status),
    processedAt: async (id) => mailbox.rows.get(id)?.processedAt,
    subsystem: async (id) => {
      const { name, sequence, type, subtype } = mailbox.rows.get(id)!.subsystem;
      return { name, sequence, type, subtype };
    },
    remove: async (id) => void mailbox.rows.delete(id),
    close: async () => {},
  };
};

describeMailboxContract("in-memory", mailboxHarness(false));
describeMailboxContract("in-memory, STATUS filter", mailboxHarness(true), { statusFilter: true });

describePipelineStoreContract("in-memory", async () => {
  const store = new InMemoryPipelineStore(new ManualClock());
  return { store, bumpEpoch: async () => ++store.tables.epoch, close: async () => {} };
});

describe("InMemoryPipelineStore.commitRun with stored flights", () => {
  it("refuses (INFRA) a run whose stored flight holds collection rows the store does not, where a real store would leave them unwritten; takes one that holds the store's", async () => {
    const store = new InMemoryPipelineStore(new ManualClock());
    const flight = sampleFlight("900101", 1);
    await store.transaction((tx) => tx.applyRun({ ...emptyRunDecision, flights: [flight] }));
    const { generation } = await store.loadRunState([], []);
    const next = { ...flight, stateVersion: 2, collections: { ...flight.collections, GTDT: [{ key: "1", values: { GATE: "Z9" } }] } };
    // Claimed as stored with GTDT Z9 and decided unchanged: the store holds A22, so that would be wrong.
    const refused = store.commitRun({ ...emptyRunDecision, flights: [next] }, { generation, stored: new Map([["900101", next]]) });
    await expect(refused).rejects.toMatchObject({ kind: "INFRA" });
    expect((await store.loadRunState([], ["900101"])).flights.get("900101")).toEqual(flight);
    await store.commitRun({ ...emptyRunDecision, flights: [next] }, { generation, stored: new Map([["900101", flight]]) });
    expect((await store.loadRunState([], ["900101"])).flights.get("900101")).toEqual(next);
  });
});
