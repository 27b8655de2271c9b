import {
  describeMailboxContract,
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
