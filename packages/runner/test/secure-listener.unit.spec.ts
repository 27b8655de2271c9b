/** Secure by default (issues 19 and 31): in every profile, no token and a public listener refuse to start. */
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/load-config.js";
import { checkListener } from "../src/config/secure-listener.js";

const PG = "postgres://postgres@127.0.0.1:5432/test";

function warnings(overrides: Record<string, string>): string[] {
  const seen: string[] = [];
  const logger = { debug() {}, info() {}, error() {}, warn: (msg: string) => void seen.push(msg) };
  checkListener(loadConfig({ env: {}, overrides }), logger);
  return seen;
}

describe("checkListener", () => {
  it("refuses a public listener without a token in every profile, embedded included, naming what to set", () => {
    for (const overrides of [{}, { profile: "embedded" }, { "pg.url": PG }, { "mysql.url": "mysql://root@127.0.0.1:3306/test" }, { "kafka.brokers": "127.0.0.1:9092" }] as Record<string, string>[]) {
      expect(() => warnings({ ...overrides, "http.host": "0.0.0.0" })).toThrow(expect.objectContaining({ kind: "CONFIG", message: expect.stringMatching(/set http\.token.*http\.allowAnonymous=true/) }));
    }
  });

  it("lets a token or a loopback listener through silently", () => {
    expect(warnings({ "pg.url": PG, "http.host": "0.0.0.0", "http.token": "a-token-of-16-chars!" })).toEqual([]);
    expect(warnings({ "http.host": "0.0.0.0", "http.token": "a-token-of-16-chars!" })).toEqual([]);
    for (const host of ["127.0.0.1", "::1", "localhost"]) expect(warnings({ "pg.url": PG, "http.host": host })).toEqual([]);
    for (const host of ["127.0.0.1", "::1", "localhost"]) expect(warnings({ "http.host": host })).toEqual([]);
  });

  it("starts with http.allowAnonymous=true, loudly, embedded or not", () => {
    for (const overrides of [{}, { "pg.url": PG }] as Record<string, string>[]) {
      expect(warnings({ ...overrides, "http.host": "0.0.0.0", "http.allowAnonymous": "true" })).toEqual([expect.stringMatching(/^SECURITY: http\.allowAnonymous=true/)]);
    }
  });
});
