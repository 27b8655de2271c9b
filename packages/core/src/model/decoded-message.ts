import type { Meta } from "./meta.js";
import type { MsgKind } from "./msg-kind.js";

/** A message the codec understood: its envelope and what it asks for. */
export interface DecodedMessage {
  readonly meta: Meta;
  readonly body: MsgKind;
}
