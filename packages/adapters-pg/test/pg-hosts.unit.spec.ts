import { MsgxError } from "@msgx/core";
import { describe, expect, it } from "vitest";
import { parsePgHosts } from "../src/pg-hosts.js";
import { pgPoolConfig } from "../src/pg-pool-config.js";

const hostsOf = (url: string) => parsePgHosts(url)?.hosts.map((h) => `${h.host}|${h.port}`);

describe("parsePgHosts (libpq's multi-host URL)", () => {
  it.each([
    ["postgres://postgres@127.0.0.1:5432/test", "one host, no target_session_attrs"],
    ["postgresql://u:p@db.example/test?sslmode=require", "one host with parameters"],
    ["host=db1 port=5432 dbname=test", "a key=value string"],
    ["socket:/var/run/postgresql?db=test", "not a postgres:// URL"],
  ])("leaves %s to node-postgres (%s)", (url) => {
    expect(parsePgHosts(url)).toBeUndefined();
  });

  it.each([
    ["postgres://u@h1:5433,h2:5434/db?target_session_attrs=read-write", ["h1|5433", "h2|5434"], "read-write"],
    ["postgresql://u@h1,h2:6000,h3/db", ["h1|5432", "h2|6000", "h3|5432"], "any"],
    ["postgres://u@[::1]:5433,[fe80::2]/db?target_session_attrs=primary", ["::1|5433", "fe80::2|5432"], "primary"],
    ["postgres://u@db1:5433/db?target_session_attrs=read-write", ["db1|5433"], "read-write"],
    ["postgres://u@h%2Dx:5433,h2/db?target_session_attrs=any", ["h-x|5433", "h2|5432"], "any"],
    ["POSTGRES://u@a,b", ["a|5432", "b|5432"], "any"],
  ])("reads %s", (url, hosts, target) => {
    expect(hostsOf(url)).toEqual(hosts);
    expect(parsePgHosts(url)?.targetSessionAttrs).toBe(target);
  });

  it("gives each host a URL node-postgres can read: same credentials, database and parameters, without target_session_attrs", () => {
    const list = parsePgHosts("postgres://app:s%40cret@h1:5433,[::1]:5434/air?sslmode=disable&target_session_attrs=read-write&application_name=x")!;
    expect(list.urlFor(list.hosts[0]!)).toBe("postgres://app:s%40cret@h1:5433/air?sslmode=disable&application_name=x");
    expect(list.urlFor(list.hosts[1]!)).toBe("postgres://app:s%40cret@[::1]:5434/air?sslmode=disable&application_name=x");
    expect(list.redacted).toBe("postgres://app:***@h1:5433,[::1]:5434/air?sslmode=disable&target_session_attrs=read-write&application_name=x");
    const bare = parsePgHosts("postgres://h1,h2?target_session_attrs=any")!;
    expect(bare.urlFor(bare.hosts[1]!)).toBe("postgres://h2:5432");
  });

  it.each([
    ["postgres://u@h1,,h2/db", /host 2 of the host list is empty/],
    ["postgres://u@h1:5433,/db", /host 2 of the host list is empty/],
    ["postgres://u@h1:0,h2/db", /port of host 1 of the host list \('0'\) must be a number from 1 to 65535/],
    ["postgres://u@h1:99999,h2/db", /port of host 1 .*'99999'/],
    ["postgres://u@h1,h2:x/db", /port of host 2 .*'x'/],
    ["postgres://u@h1,::1:5432/db", /host 2 of the host list \('::1:5432'\) is not host\[:port\] \(IPv6 addresses go in brackets\)/],
    ["postgres://u@h1,%2Ftmp/db", /host 2 of the host list is a socket directory/],
    ["postgres://u@h1,h2/db?target_session_attrs=read-only", /target_session_attrs=read-only picks a server msgx cannot write to/],
    ["postgres://u@h1,h2/db?target_session_attrs=prefer-standby", /target_session_attrs=prefer-standby picks/],
    ["postgres://u@h1,h2/db?target_session_attrs=readwrite", /target_session_attrs must be any, read-write or primary, not 'readwrite'/],
    ["postgres://u@h1/db?target_session_attrs=any&target_session_attrs=primary", /target_session_attrs is given more than once/],
    ["postgres://u@h1,h2/db?port=5433", /not as \?port=/],
    ["postgres://u@h1,h2/db?host=h3", /not as \?host=/],
  ])("refuses %s, naming what is wrong", (url, problem) => {
    let thrown: unknown;
    try {
      parsePgHosts(url);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(MsgxError);
    expect(thrown).toMatchObject({ kind: "CONFIG", retriable: false });
    expect((thrown as Error).message).toMatch(/^PostgreSQL URL postgres:\/\//);
    expect((thrown as Error).message).toMatch(problem);
  });

  it("never prints the password of a refused URL", () => {
    expect(() => parsePgHosts("postgres://u:hunter2@h1,,h2/db")).toThrow(/postgres:\/\/u:\*\*\*@h1,,h2\/db/);
    expect(() => parsePgHosts("postgres://u:hunter2@h1,,h2/db")).not.toThrow(/hunter2/);
  });
});

describe("pgPoolConfig with a host list", () => {
  class FakeClient {
    host = "";
    port = 0;
    async connect(): Promise<unknown> {
      return this;
    }
    async query(): Promise<{ rows: Record<string, unknown>[] }> {
      return { rows: [] };
    }
    async end(): Promise<void> {}
    on(): unknown {
      return this;
    }
  }

  it("hands node-postgres the first host's URL and a Client that chooses the host", () => {
    const config = pgPoolConfig({ connectionString: "postgres://u@h1:5433,h2:5434/db?target_session_attrs=read-write" }, { Client: FakeClient });
    expect(config["connectionString"]).toBe("postgres://u@h1:5433/db");
    expect(typeof config["Client"]).toBe("function");
    expect(new (config["Client"] as typeof FakeClient)()).toBeInstanceOf(FakeClient);
  });

  it("leaves a one-host URL and its config as they were", () => {
    const config = pgPoolConfig({ connectionString: "postgres://u@h1:5433/db" }, { Client: FakeClient });
    expect(config["connectionString"]).toBe("postgres://u@h1:5433/db");
    expect(config["Client"]).toBeUndefined();
  });

  it("refuses a host list without the driver to build the Client from", () => {
    expect(() => pgPoolConfig({ connectionString: "postgres://u@h1,h2/db" })).toThrow(/host list or target_session_attrs needs pgPoolConfig\(options, pg\)/);
  });
});
