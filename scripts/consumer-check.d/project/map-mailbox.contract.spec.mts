/**
 * Core's published Mailbox contract against the consumer's own adapter (MapMailbox), and against
 * core's fake from `@msgx/core/fakes`: the suites of `@msgx/core/testing` work from outside the
 * workspace, with the fakes of the other subpath.
 */
import { InMemoryMailbox, ManualClock } from "@msgx/core/fakes";
import { describeMailboxContract, type MailboxHarness } from "@msgx/core/testing";
import { MapMailbox } from "./map-mailbox.mjs";

function harness(mailbox: MapMailbox | InMemoryMailbox, insert: (raw: string, status: string) => number): MailboxHarness {
  const row = (id: number) => mailbox.rows.get(id);
  return {
    mailbox,
    insert: async (raw, options) => insert(raw, options?.status ?? "VALID"),
    processedAt: async (id) => row(id)?.processedAt,
    subsystem: async (id) => {
      const s = row(id)?.subsystem;
      return { name: s?.name ?? null, sequence: s?.sequence ?? null, type: s?.type ?? null, subtype: s?.subtype ?? null };
    },
    remove: async (id) => {
      mailbox.rows.delete(id);
    },
    close: async () => {},
  };
}

describeMailboxContract("a consumer's MapMailbox", async () => {
  const mailbox = new MapMailbox(true);
  return harness(mailbox, (raw, status) => mailbox.insert(raw, status));
}, { statusFilter: true });

describeMailboxContract("@msgx/core/fakes InMemoryMailbox", async () => {
  const mailbox = new InMemoryMailbox(new ManualClock(), { onlyValid: true });
  return harness(mailbox, (raw, status) => mailbox.insert(raw, status));
}, { statusFilter: true });
