import { MsgxError, type OutboundMailbox, type OutboundQuery, type OutboundRow } from "@msgx/core";

/**
 * Shadow mode (SPEC §2.5) on the outbound side: msgx asks nothing upstream, so `insert` refuses
 * with `MsgxError("CONFIG")`; `find` reads through (what the shadowed system sent stays visible).
 */
export class ShadowOutboundMailbox implements OutboundMailbox {
  constructor(readonly inner: OutboundMailbox) {}

  async insert(_rawXml: string, _routingId: string, _signal?: AbortSignal): Promise<number> {
    throw new MsgxError("CONFIG", "shadow mode never writes the outbound mailbox (coutmsgs)");
  }

  find(query: OutboundQuery, signal?: AbortSignal): Promise<readonly OutboundRow[]> {
    return this.inner.find(query, signal);
  }
}
