import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgHostClient } from "../src/pg-host-client.js";
import { parsePgHosts } from "../src/pg-hosts.js";

/** A server as the fake driver sees it: down (refuses), or up, read-only or not. */
type Server_ = { state: "down" | "read-only" | "read-write" };
const servers = new Map<number, Server_>();
const sessions: number[] = [];

/** node-postgres's Client as far as pgHostClient uses it, answering from `servers`. */
class FakeClient {
  host = "";
  port = 0;
  connected = false;
  constructor(readonly config: unknown) {}
  async connect(): Promise<unknown> {
    sessions.push(this.port);
    if (servers.get(this.port)?.state !== "read-only" && servers.get(this.port)?.state !== "read-write") {
      throw Object.assign(new Error(`connect ECONNREFUSED 127.0.0.1:${this.port}`), { code: "ECONNREFUSED" });
    }
    this.connected = true;
    return this;
  }
  async query(text: string): Promise<{ rows: Record<string, unknown>[] }> {
    expect(text).toBe("SHOW transaction_read_only");
    return { rows: [{ transaction_read_only: servers.get(this.port)?.state === "read-write" ? "off" : "on" }] };
  }
  async end(): Promise<void> {
    this.connected = false;
  }
  on(): unknown {
    return this;
  }
}

// Real listening sockets stand for the hosts: the remembered host is checked with a TCP connect.
const listeners: Server[] = [];
let ports: number[] = [];
beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    listeners.push(server);
  }
  ports = listeners.map((s) => (s.address() as { port: number }).port);
});
afterAll(async () => {
  await Promise.all(listeners.map((s) => new Promise((resolve) => s.close(resolve))));
});

const hostClass = () => pgHostClient(FakeClient, parsePgHosts(`postgres://u@127.0.0.1:${ports[0]},127.0.0.1:${ports[1]}/db?target_session_attrs=read-write`)!, 1_000);
const set = (a: Server_["state"], b: Server_["state"]) => {
  servers.set(ports[0]!, { state: a });
  servers.set(ports[1]!, { state: b });
  sessions.length = 0;
};

describe("pgHostClient", () => {
  it("probes the hosts in order and connects to the first read-write one; later connections go straight there", async () => {
    const Client = hostClass();
    set("read-only", "read-write");
    const first = new Client({});
    await first.connect();
    expect(first.port).toBe(ports[1]);
    expect(sessions).toEqual([ports[0], ports[1], ports[1]]); // probe a (read-only), probe b, the connection
    sessions.length = 0;
    const second = new Client({});
    await second.connect();
    expect(second.port).toBe(ports[1]);
    expect(sessions).toEqual([ports[1]]);
  });

  it("a server demoted after the probe fails the connection with 25006, and the next one searches again", async () => {
    const Client = hostClass();
    set("read-write", "read-only");
    await new Client({}).connect();
    set("read-only", "read-write");
    const demoted = new Client({});
    await expect(demoted.connect()).rejects.toMatchObject({ code: "25006", message: expect.stringMatching(/is read-only.*target_session_attrs=read-write/) });
    expect(demoted.connected).toBe(false);
    const next = new Client({});
    await next.connect();
    expect(next.port).toBe(ports[1]);
  });

  it("with no host qualifying, names every host's reason; the code is the shared one, else 08001", async () => {
    const Client = hostClass();
    set("down", "read-only");
    const mixed = await new Client({}).connect().catch((e: unknown) => e);
    expect(mixed).toMatchObject({ code: "08001" });
    expect((mixed as Error).message).toMatch(new RegExp(`127\\.0\\.0\\.1:${ports[0]}: connect ECONNREFUSED.*; 127\\.0\\.0\\.1:${ports[1]} is read-only`));
    set("read-only", "read-only");
    await expect(new Client({}).connect()).rejects.toMatchObject({ code: "25006" });
  });

  it("answers pg-pool's callback form — (null, client) or (error) — with a promise that never rejects", async () => {
    const Client = hostClass();
    set("down", "read-write");
    // pg-pool calls connect(callback), a form @types/pg declares and FakeClient does not.
    type WithCallback = { connect(callback: (...args: unknown[]) => void): Promise<unknown> };
    const ok = new Client({});
    const okArgs = await new Promise<unknown[]>((resolve) => void (ok as unknown as WithCallback).connect((...args) => resolve(args)));
    expect(okArgs).toEqual([null, ok]);
    set("down", "down");
    const failing = new Client({});
    let settled: unknown[] = [];
    await (failing as unknown as WithCallback).connect((...args) => (settled = args));
    expect(settled[0]).toMatchObject({ code: "ECONNREFUSED" });
  });

  it("connections opened at once share one search", async () => {
    const Client = hostClass();
    set("read-only", "read-write");
    await Promise.all([0, 1, 2].map(() => new Client({}).connect()));
    expect(sessions.filter((p) => p === ports[0])).toHaveLength(1);
    expect(sessions).toHaveLength(1 + 1 + 3);
  });
});
