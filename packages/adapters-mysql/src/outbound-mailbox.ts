/**
 * The outbound mailbox port lives in `@msgx/core` (`ports/outbound-mailbox.ts`) beside `Mailbox`;
 * re-exported here so existing imports keep working.
 */
export type { OutboundMailbox, OutboundRow, OutboundQuery } from "@msgx/core";
