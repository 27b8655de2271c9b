/**
 * `/console` (issue 23): the page and its hashed assets with their content types and caching, the
 * console's CSP, `nosniff` and `no-referrer` on every answer, the shell served without the admin
 * token (the data calls carry it), and anything else — a traversal, an unknown file — a 404 JSON.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@msgx/core";
import { RecordingLogger } from "@msgx/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { CONSOLE_CSP } from "../src/http/console-routes.js";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import type { ReliableAdminApi } from "../src/reliable/reliable-admin.js";
import { pipelineLessContext } from "./route-spec.js";

const dir = mkdtempSync(join(tmpdir(), "msgx-console-"));
mkdirSync(join(dir, "assets"));
writeFileSync(join(dir, "index.html"), '<!doctype html><script type="module" src="/console/assets/console-ABCD1234.js"></script>');
writeFileSync(join(dir, "assets", "console-ABCD1234.js"), "console.log(1)");
writeFileSync(join(dir, "assets", "console-EFGH5678.css"), "body{margin:0}");
writeFileSync(join(dir, "secret.js"), "not an asset");

const ctx = {
  ...pipelineLessContext(new RecordingLogger() as Logger, "admin-token"),
  metrics: async () => ({ contentType: "text/plain", body: "" }),
  reliable: {} as ReliableAdminApi,
} satisfies HttpContext;
const app = createHttpServer(ctx, undefined, { consoleDir: dir });
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (url: string) => app.inject({ method: "GET", url });

describe("the console routes", () => {
  it("serve the page at /console without the admin token, uncached, with the console's headers", async () => {
    for (const url of ["/console", "/console/"]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.body).toContain("/console/assets/console-ABCD1234.js");
      expect(res.headers["cache-control"]).toBe("no-cache");
      expect(res.headers["content-security-policy"]).toBe(CONSOLE_CSP);
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.headers["referrer-policy"]).toBe("no-referrer");
    }
    expect((await get("/admin/status")).statusCode).toBe(401);
  });

  it("serve a hashed asset with its content type, cached for good", async () => {
    const js = await get("/console/assets/console-ABCD1234.js");
    expect(js.statusCode).toBe(200);
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(js.headers["content-security-policy"]).toBe(CONSOLE_CSP);
    expect(js.body).toBe("console.log(1)");
    const css = await get("/console/assets/console-EFGH5678.css");
    expect(css.statusCode).toBe(200);
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
  });

  it("answer a traversal or an unknown file with a 404 JSON, never a file outside the assets", async () => {
    for (const url of [
      "/console/assets/..%2Fsecret.js",
      "/console/assets/%2e%2e%2fsecret.js",
      "/console/assets/../secret.js",
      "/console/assets/..%2F..%2F..%2Fpackage.json",
      "/console/assets/.hidden.js",
      "/console/assets/console-ABCD1234.txt",
      "/console/assets/nope-ABCD1234.js",
      "/console/nope",
      "/console/assets/",
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toMatchObject({ error: "not found" });
      expect(res.body, url).not.toContain("not an asset");
    }
  });
});
