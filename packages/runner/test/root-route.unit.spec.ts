/**
 * `GET /` (issue 31): a browser is sent on to the console when it is built, else shown a page of
 * links; any other client gets the links as JSON. Open without the admin token, like the probes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@msgx/core";
import { RecordingLogger } from "@msgx/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import { DOCS_URL } from "../src/http/root-route.js";
import type { ReliableAdminApi } from "../src/reliable/reliable-admin.js";
import { pipelineLessContext } from "./route-spec.js";

const built = mkdtempSync(join(tmpdir(), "msgx-root-built-"));
writeFileSync(join(built, "index.html"), "<!doctype html><title>console</title>");
const unbuilt = mkdtempSync(join(tmpdir(), "msgx-root-unbuilt-"));
mkdirSync(join(unbuilt, "assets"));

const ctx = {
  ...pipelineLessContext(new RecordingLogger() as Logger, "admin-token"),
  metrics: async () => ({ contentType: "text/plain", body: "" }),
  reliable: {} as ReliableAdminApi,
} satisfies HttpContext;
const withConsole = createHttpServer(ctx, undefined, { consoleDir: built });
const withoutConsole = createHttpServer(ctx, undefined, { consoleDir: unbuilt });
afterAll(async () => {
  await Promise.all([withConsole.close(), withoutConsole.close()]);
  rmSync(built, { recursive: true, force: true });
  rmSync(unbuilt, { recursive: true, force: true });
});

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

describe("GET /", () => {
  it("sends a browser to the console when it is built, without asking for the token", async () => {
    const res = await withConsole.inject({ method: "GET", url: "/", headers: { accept: BROWSER } });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe("/console");
    expect((await withConsole.inject({ method: "GET", url: res.headers.location! })).statusCode).toBe(200);
  });

  it("shows a browser a page linking health, readiness, metrics and the docs when the console is not built", async () => {
    const res = await withoutConsole.inject({ method: "GET", url: "/", headers: { accept: BROWSER } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    for (const href of ["/healthz", "/readyz", "/metrics", DOCS_URL]) expect(res.body).toContain(`href="${href}"`);
    expect(res.body).not.toContain('href="/console"');
    expect(res.body).toContain("build:run");
  });

  it("answers any other client with the links as JSON, the console among them only when built", async () => {
    for (const accept of [undefined, "application/json", "*/*"]) {
      const res = await withConsole.inject({ method: "GET", url: "/", headers: accept ? { accept } : {} });
      expect(res.statusCode, accept).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(res.json()).toEqual({ name: "msgx", links: { console: "/console", health: "/healthz", ready: "/readyz", metrics: "/metrics", docs: DOCS_URL } });
    }
    const res = await withoutConsole.inject({ method: "GET", url: "/" });
    expect(res.json().links).not.toHaveProperty("console");
  });

  it("links only routes that answer", async () => {
    const { links } = (await withConsole.inject({ method: "GET", url: "/" })).json() as { links: Record<string, string> };
    for (const path of Object.values(links).filter((l) => l.startsWith("/"))) {
      expect((await withConsole.inject({ method: "GET", url: path })).statusCode, path).not.toBe(404);
    }
  });
});
