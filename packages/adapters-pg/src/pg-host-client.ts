import { connect as tcpConnect } from "node:net";
import { formatHost, type PgHost, type PgHostList } from "./pg-hosts.js";

/** What {@link pgHostClient} uses of node-postgres's `Client` (structural: no import of pg). */
export interface HostableClient {
  host: string;
  port: number;
  connect(): Promise<unknown>;
  query(text: string): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  on(event: "error", listener: (e: Error) => void): unknown;
}

/** node-postgres's `Client` class, or a subclass of it (whatever its constructor takes). */
export type HostableClientClass = new (...args: never[]) => HostableClient;

/** The same class as a mixin base, which TypeScript wants with `any[]` arguments (kept private). */
type MixinBase = new (...args: any[]) => HostableClient;

const noop = (): void => undefined;

/**
 * A subclass of node-postgres's `Client` whose every instance connects to a host of `list` that
 * gives it the session it asks for — what libpq does with a host list and `target_session_attrs`.
 * Give it to `pg.Pool` as `Client`, or construct it where a `pg.Client` would be.
 *
 * A connection goes to the host the previous good connection went to while that host accepts TCP
 * connections; otherwise to the first host, in the list's order, where a probe connection succeeds
 * and (for `read-write`) `SHOW transaction_read_only` is off or (for `primary`)
 * `pg_is_in_recovery()` is false. The connection itself checks the same once connected: a server
 * that was demoted in between fails it with SQLSTATE 25006 (an outage), and the next connection
 * looks again. When no host qualifies the error lists every host's reason; its `code` is the
 * reason all hosts share (ECONNREFUSED, 25006, 28P01…) or 08001 when they differ.
 */
export function pgHostClient<C extends HostableClientClass>(BaseClass: C, list: PgHostList, connectTimeoutMs: number): C {
  const Base = BaseClass as unknown as MixinBase;
  const chooser = new HostChooser(list, connectTimeoutMs);
  // node-postgres reads host and port from the client when it connects; its parsed parameters
  // (undeclared in @types/pg) are kept in step so nothing else sees the first host.
  const aim = (client: HostableClient, host: PgHost): void => {
    client.host = host.host;
    client.port = host.port;
    const parameters = (client as { connectionParameters?: { host: string; port: number } }).connectionParameters;
    if (parameters !== undefined) Object.assign(parameters, { host: host.host, port: host.port });
  };
  // The pool's and the probes' clients are built from the same config.
  const sessionOn = async (Client: MixinBase, config: unknown, host: PgHost): Promise<void> => {
    const probe = new Client(config);
    probe.on("error", noop);
    aim(probe, host);
    try {
      await probe.connect();
      await checkSession(probe, list, host);
    } finally {
      await probe.end().catch(noop);
    }
  };

  class PgHostClient extends Base {
    readonly #config: unknown;

    constructor(...args: any[]) {
      super(...args);
      this.#config = args[0];
    }

    /** node-postgres's two forms: a promise of the client, or a callback (pg-pool's) and a promise that never rejects. */
    override connect(callback?: (e: Error | null, client?: unknown) => void): Promise<unknown> {
      const connected = this.#connect().then(() => this);
      if (callback === undefined) return connected;
      return connected.then(
        () => callback(null, this),
        (e: Error) => callback(e),
      );
    }

    async #connect(): Promise<void> {
      const host = await chooser.choose((candidate) => sessionOn(Base, this.#config, candidate));
      aim(this, host);
      try {
        await super.connect();
        await checkSession(this, list, host);
      } catch (e) {
        chooser.forget(host);
        await this.end().catch(noop);
        throw e;
      }
    }
  }
  return PgHostClient as unknown as C;
}

/** Which host new connections go to; one search at a time, shared by every client of one list. */
class HostChooser {
  readonly #list: PgHostList;
  readonly #connectTimeoutMs: number;
  #current: PgHost | undefined;
  #searching: Promise<PgHost> | undefined;

  constructor(list: PgHostList, connectTimeoutMs: number) {
    this.#list = list;
    this.#connectTimeoutMs = connectTimeoutMs;
  }

  async choose(probe: (host: PgHost) => Promise<void>): Promise<PgHost> {
    const current = this.#current;
    if (current !== undefined && (await acceptsTcp(current, this.#connectTimeoutMs))) return current;
    if (this.#current === current) this.#current = undefined;
    this.#searching ??= this.#search(probe).finally(() => (this.#searching = undefined));
    return this.#searching;
  }

  forget(host: PgHost): void {
    if (this.#current === host) this.#current = undefined;
  }

  async #search(probe: (host: PgHost) => Promise<void>): Promise<PgHost> {
    const reasons: string[] = [];
    const codes = new Set<string>();
    let last: unknown;
    for (const host of this.#list.hosts) {
      try {
        await probe(host);
        this.#current = host;
        return host;
      } catch (e) {
        last = e;
        const reason = e instanceof Error ? e.message : String(e);
        reasons.push(reason.startsWith(formatHost(host)) ? reason : `${formatHost(host)}: ${reason}`);
        const code = (e as { code?: unknown })?.code;
        codes.add(typeof code === "string" ? code : "08001");
      }
    }
    const [code] = codes.size === 1 ? [...codes] : ["08001"];
    const hosts = this.#list.hosts.map(formatHost).join(", ");
    const message = `no host of ${hosts} gives a ${this.#list.targetSessionAttrs} session (target_session_attrs): ${reasons.join("; ")}`;
    throw Object.assign(new Error(message, { cause: last }), { code });
  }
}

/** Fails with SQLSTATE 25006 unless the session is of the kind the list asks for. */
async function checkSession(client: HostableClient, list: PgHostList, host: PgHost): Promise<void> {
  const refuse = (why: string): never => {
    throw Object.assign(new Error(`${formatHost(host)} ${why} (target_session_attrs=${list.targetSessionAttrs})`), { code: "25006" });
  };
  switch (list.targetSessionAttrs) {
    case "any":
      return;
    case "read-write": {
      const { rows } = await client.query("SHOW transaction_read_only");
      if (rows[0]?.["transaction_read_only"] !== "off") refuse("is read-only: a standby, or default_transaction_read_only is on");
      return;
    }
    case "primary": {
      const { rows } = await client.query("SELECT pg_catalog.pg_is_in_recovery() AS in_recovery");
      if (rows[0]?.["in_recovery"] !== false) refuse("is in recovery: a standby");
      return;
    }
  }
}

/** Whether a TCP connection to the host opens (a killed server refuses at once). */
function acceptsTcp(host: PgHost, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: host.host, port: host.port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}
