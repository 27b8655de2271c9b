import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyReply } from "fastify";
import { z } from "zod";
import type { HttpApp } from "./http-app.js";

/**
 * The console page may load only what the runner serves: no CDN, no inline script or style, no
 * framing, no other origin to talk to (every data call is a same-origin `/admin` fetch).
 */
export const CONSOLE_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'";

/** An asset name as the build writes it: no separator, no leading dot, so never outside the directory. */
const ASSET = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(js|css)$/;
/** `console-<hash>.js`: the name changes with the content, so it may be cached for good. */
const HASHED = /-[A-Z0-9]{8,}\.(js|css)$/;
const CONTENT_TYPES: Readonly<Record<string, string>> = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" };

/**
 * The built console (tsup.config.ts): beside the bundle in `dist` (`dist/console`), or — when the
 * runner runs from its TypeScript sources — the package's `dist/console` if a build made one.
 */
export function defaultConsoleDir(): string {
  const candidates = [new URL("./console/", import.meta.url), new URL("../../dist/console/", import.meta.url)].map((u) => fileURLToPath(u));
  return candidates.find((dir) => existsSync(join(dir, "index.html"))) ?? candidates[0]!;
}

/**
 * The operations console (docs/console.md): `GET /console` is its page and `/console/assets/<file>`
 * its script and stylesheet; anything else under `/console` is the usual 404 JSON. The shell holds
 * no data, so it is served without the token; every data call it makes is an `/admin` fetch that
 * carries it. Every answer carries the console's CSP, `nosniff` and `no-referrer`.
 */
export function registerConsoleRoutes(app: HttpApp, dir: string = defaultConsoleDir()): void {
  app.addHook("onSend", async (_request, reply) => {
    void reply.header("content-security-policy", CONSOLE_CSP).header("x-content-type-options", "nosniff").header("referrer-policy", "no-referrer");
  });

  const page = async (_request: unknown, reply: FastifyReply) => {
    const html = await readOrUndefined(join(dir, "index.html"));
    if (html === undefined) return reply.code(404).send({ error: "not found", message: "the console is not built (pnpm build:run builds it)" });
    return reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").send(html);
  };
  const html = { config: { openapi: { produces: ["text/html"] } } };
  app.get("/console", html, page);
  app.get("/console/", html, page);

  app.get("/console/assets/:file", { schema: { params: z.object({ file: z.string() }) }, config: { openapi: { produces: ["text/javascript", "text/css"] } } }, async (request, reply) => {
    const { file } = request.params;
    const match = ASSET.exec(file);
    const body = match ? await readOrUndefined(join(dir, "assets", file)) : undefined;
    if (!match || body === undefined) return reply.code(404).send({ error: "not found", message: "no such console asset" });
    return reply
      .type(CONTENT_TYPES[match[1]!]!)
      .header("cache-control", HASHED.test(file) ? "public, max-age=31536000, immutable" : "no-cache")
      .send(body);
  });
}

async function readOrUndefined(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT" || (e as NodeJS.ErrnoException).code === "EISDIR") return undefined;
    throw e;
  }
}
