/**
 * The `--url` client of the CLI (issue 20): every 4xx the runner answers is the caller's mistake
 * (CONFIG: exit 2, the runner's message shown), a 5xx is INFRA, a GET 404 is "not there".
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminHttp } from "../src/commands/admin-http.js";

let server: Server;
let base = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    const status = Number(req.url!.split("/").at(-1));
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(status < 300 ? { ok: true } : { error: "x", message: `runner says ${status}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("adminHttp", () => {
  it("reads a 4xx as the caller's mistake (CONFIG) with the runner's message, a 5xx as INFRA, a GET 404 as absent", async () => {
    const call = adminHttp(base, "t");
    expect(await call("POST", "/s/200")).toEqual({ ok: true });
    expect(await call("GET", "/s/404")).toBeUndefined();
    for (const status of [400, 401, 404, 409, 422]) {
      await expect(call("POST", `/s/${status}`), String(status)).rejects.toMatchObject({ kind: "CONFIG", message: expect.stringContaining(`HTTP ${status} runner says ${status}`) });
    }
    await expect(call("POST", "/s/500")).rejects.toMatchObject({ kind: "INFRA" });
    await expect(call("POST", "/s/503")).rejects.toMatchObject({ kind: "INFRA" });
  });
});
