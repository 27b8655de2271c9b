import { existsSync } from "node:fs";
import { join } from "node:path";
import type { FastifyRequest } from "fastify";
import { defaultConsoleDir } from "./console-routes.js";
import type { HttpApp } from "./http-app.js";

/** Where the documentation lives: the repository's README (it links every doc). */
export const DOCS_URL = "https://github.com/msgx/msgx#readme";

/** The routes `GET /` points at; the console only when it is built. */
export function rootLinks(consoleBuilt: boolean): Record<string, string> {
  return {
    ...(consoleBuilt ? { console: "/console" } : {}),
    health: "/healthz",
    ready: "/readyz",
    metrics: "/metrics",
    docs: DOCS_URL,
  };
}

/**
 * `GET /`, the address a newcomer types first: a browser (`Accept: text/html`) is sent on to the
 * console (303) when it is built, else shown a small page of links; any other client gets the same
 * links as JSON (`{ name, links }`). Open like the probes: it names routes, no data.
 */
export function registerRootRoute(app: HttpApp, consoleDir: string = defaultConsoleDir()): void {
  app.get("/", { config: { openapi: { produces: ["application/json", "text/html"] } } }, async (request, reply) => {
    const consoleBuilt = existsSync(join(consoleDir, "index.html"));
    const links = rootLinks(consoleBuilt);
    if (!wantsHtml(request)) return reply.type("application/json; charset=utf-8").send({ name: "msgx", links });
    if (consoleBuilt) return reply.redirect("/console", 303);
    return reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").send(linksPage(links));
  });
}

function wantsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/i.test(request.headers.accept ?? "");
}

function linksPage(links: Record<string, string>): string {
  const items = Object.entries(links)
    .map(([name, href]) => `<li><a href="${href}">${name}</a> <code>${href}</code></li>`)
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>msgx</title></head>
<body><h1>msgx</h1>
<p>The operations console is not built here (<code>npx -y pnpm@10.34.9 build:run</code> builds it).</p>
<ul>
${items}
</ul></body></html>
`;
}
