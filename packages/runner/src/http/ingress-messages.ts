import type { AppendedElsewhere } from "@msgx/core";
import type { MysqlMailboxOptionsInput } from "@msgx/adapters-mysql";
import type { HttpTimeouts } from "./http-server.js";

/** Whether the ingress takes messages, and the role a refusal names (503 while not running). */
export interface IngressState {
  readonly accepting: boolean;
  readonly role: string;
}

/** What the ingress thread starts with (`workerData`; structured-cloned). */
export interface IngressWorkerData {
  readonly host: string;
  readonly port: number;
  readonly token: string | undefined;
  readonly maxBodyBytes: number;
  readonly timeouts: HttpTimeouts;
  readonly logLevel: string;
  readonly mysqlUrl: string;
  readonly mailbox: MysqlMailboxOptionsInput;
  readonly state: IngressState;
}

/** A request the ingress thread does not serve, handed to the main thread's app as received. */
export interface ForwardedRequest {
  readonly t: "request";
  readonly id: number;
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Uint8Array;
  readonly remoteAddress: string | undefined;
}

/** One answered request for `observeRequest`: method, route pattern, status, seconds. */
export type ObservedRequest = readonly [method: string, route: string, status: number, seconds: number];

/** Ingress thread → main thread. */
export type FromIngress =
  | { readonly t: "listening"; readonly address: string; readonly port: number }
  | { readonly t: "listen-failed"; readonly error: string }
  | ForwardedRequest
  /** Committed appends and answered ingress requests since the last message (one message per turn of the thread's loop). */
  | { readonly t: "news"; readonly appended: readonly AppendedElsewhere[]; readonly observed: readonly ObservedRequest[] }
  | { readonly t: "closed" };

/** Main thread → ingress thread. */
export type ToIngress =
  | { readonly t: "answer"; readonly id: number; readonly status: number; readonly headers: Readonly<Record<string, unknown>>; readonly body: Uint8Array }
  | { readonly t: "state"; readonly state: IngressState }
  /** Stop accepting, answer what is in flight, close the pool, report `closed`. */
  | { readonly t: "close" };
