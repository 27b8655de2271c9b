/**
 * The outbound mailbox port lives in `@msgx/core` (`ports/outbound-mailbox.ts`) beside `Mailbox`;
 * re-exported here so existing imports keep working. Taken from the core source until the
 * `@msgx/core` barrel exports it; then this line becomes `export type { … } from "@msgx/core"`.
 */
export type { OutboundMailbox, OutboundRow, OutboundQuery } from "@msgx/core";
