import type { AppendedElsewhere, PipelineRouter, ReceiveOptions } from "@msgx/core";

/**
 * Appends one raw message to the mailbox and wakes the intake; resolves with its mailbox id. A
 * valid `traceparent` makes the message's spans and events part of that trace (the router ignores
 * an invalid one).
 */
export type Receive = (rawXml: string, options?: ReceiveOptions) => Promise<number>;

/** How messages reach the router: appended through it, or appended by the ingress thread and announced. */
export interface RouterIngress {
  readonly receive: Receive;
  /** Rows the ingress thread committed on its own connections: the router keeps their texts and traces. */
  appendedElsewhere(appends: readonly AppendedElsewhere[]): void;
}

/**
 * The runner's one path into the router: the HTTP ingress, `Exchange.receive` and the ingress
 * thread's news all go through it, so every message is appended (or announced) by the router and
 * the steps the router names are woken through `wake` — the running loops, or nothing yet.
 */
export function routerIngress(
  router: Pick<PipelineRouter, "receive" | "appendedElsewhere">,
  wake: (names: readonly string[]) => void | Promise<void>,
): RouterIngress {
  return {
    receive: async (rawXml, options = {}) => {
      const { msgId, wake: names } = await router.receive(rawXml, options);
      await wake(names);
      return msgId;
    },
    appendedElsewhere: (appends) => void wake(router.appendedElsewhere(appends)),
  };
}
