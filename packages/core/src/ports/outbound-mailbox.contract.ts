import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OutboundMailbox } from "./outbound-mailbox.js";

/** One fresh, empty outbound table per test. */
export interface OutboundMailboxHarness {
  readonly outbound: OutboundMailbox;
  close(): Promise<void>;
}

const rqfd = (seqn: number) =>
  `<MSG><META><SNDR>MSGX</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305090000</DTTM><TYPE>RQFD</TYPE><STYP>NONE</STYP></META>` +
  `<RQFD><STDB>06MAR260000</STDB><STDE>06MAR262359</STDE></RQFD></MSG>`;

/** The behaviour every `OutboundMailbox` (`COUTMSGS`) must show. */
export function describeOutboundMailboxContract(name: string, factory: () => Promise<OutboundMailboxHarness>): void {
  describe(`OutboundMailbox contract: ${name}`, () => {
    let h: OutboundMailboxHarness;
    beforeEach(async () => {
      h = await factory();
    });
    afterEach(async () => {
      await h.close();
    });

    it("inserts rows with ascending ids and reads them back by id, unsent", async () => {
      const a = await h.outbound.insert(rqfd(1), "VIEWRQFD");
      const b = await h.outbound.insert(rqfd(2), "VIEWRQFD");
      expect(b).toBeGreaterThan(a);
      const rows = await h.outbound.find({ ids: [b, a, 424242] });
      expect(rows.map((r) => r.id)).toEqual([a, b]);
      expect(rows[0]).toMatchObject({ id: a, routingId: "VIEWRQFD", rawXml: rqfd(1), sentAt: null, ack: { status: null, text: null, at: null } });
      expect(await h.outbound.find({ ids: [] })).toEqual([]);
    });

    it("finds a row by exactly what was inserted: routing id, byte-exact text, insertion time bound", async () => {
      const since = Date.now() - 3_600_000;
      const a = await h.outbound.insert(rqfd(7), "VIEWRQFD");
      await h.outbound.insert(rqfd(8), "VIEWRQFD");
      await h.outbound.insert(rqfd(7), "VIEWRQRD");
      expect((await h.outbound.find({ routingId: "VIEWRQFD", rawXml: rqfd(7), insertedSince: since })).map((r) => r.id)).toEqual([a]);
      expect(await h.outbound.find({ routingId: "VIEWRQFD", rawXml: rqfd(7).toLowerCase() })).toEqual([]);
      expect(await h.outbound.find({ routingId: "VIEWRQFD", rawXml: `${rqfd(7)} ` })).toEqual([]);
      expect(await h.outbound.find({ routingId: "VIEWRQFD", rawXml: rqfd(9) })).toEqual([]);
    });

    it("refuses an empty routing id", async () => {
      await expect(h.outbound.insert(rqfd(1), "")).rejects.toThrow();
    });
  });
}
