import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { MessagePort } from "node:worker_threads";
import { MysqlMailbox, mailboxPoolOptions } from "@msgx/adapters-mysql";
import { errorMessage, type AppendedElsewhere, type ReceiveOptions } from "@msgx/core";
import { createLogger } from "../logging.js";
import { ADMIN_BODY_BYTES } from "./admin-routes.js";
import { createBaseApp, nodeHttpOptions, urlPath } from "./http-server.js";
import { notRunning } from "./http-error.js";
import type { FromIngress, IngressState, IngressWorkerData, ObservedRequest, ToIngress } from "./ingress-messages.js";
import { INGRESS_PATH, registerIngressRoute } from "./ingress-route.js";
import type { ZodTypeProvider } from "./zod-validation.js";

/**
 * The ingress thread (docs/operations.md "The HTTP server"): listens at `http.host:http.port`,
 * serves `POST /cminmsgs/send` itself — token, body limits, charset, the append on its own mysql2
 * pool (grouped as the pipeline's mailbox groups them), the answer once the INSERT returned — and
 * hands every other request, as received, to the main thread's app (`port`). Each turn of its loop
 * posts the rows it committed (the pipeline keeps their texts and wakes the intake) and the
 * requests it answered (metrics). Its log lines go to fd 1 from here, never through the main thread.
 */
export async function serveIngress(port: MessagePort, data: IngressWorkerData): Promise<void> {
  const post = (m: FromIngress) => port.postMessage(m);
  const logger = createLogger(data.logLevel);
  const mysql = await import("mysql2/promise");
  const pool = mysql.createPool({ uri: data.mysqlUrl, ...mailboxPoolOptions });
  // The pipeline keeps the texts and rows (its mailbox's `appendedElsewhere`): none are held here.
  const mailbox = new MysqlMailbox(pool as never, { ...data.mailbox, appendedTextChars: 0, appendedRows: 0 });
  let state: IngressState = data.state;
  const news = newsBatcher(post);
  const ctx = {
    logger,
    token: data.token,
    maxBodyBytes: data.maxBodyBytes,
    // The router is the main thread's: the row is appended here and announced to it (`news`),
    // where the one path into the router (`routerIngress.appendedElsewhere`) takes it.
    receive: async (raw: string, options: ReceiveOptions = {}) => {
      if (!state.accepting) throw notRunning(state.role);
      const msgId = await mailbox.append(raw);
      const traceparent = options.traceparent ?? undefined;
      news.appended({ msgId, text: raw, ...(traceparent !== undefined ? { traceparent } : {}), committedAt: Date.now() });
      return msgId;
    },
    observeRequest: (method: string, route: string, status: number, seconds: number) => news.observed([method, route, status, seconds]),
  };
  // The largest body any route of the main app takes: `http.maxBodyBytes`, or the admin routes' own cap.
  const forwarder = forwardTo(post, Math.max(data.maxBodyBytes, ADMIN_BODY_BYTES));
  const app = createBaseApp(ctx, data.timeouts, (handler) => {
    const server = createServer(nodeHttpOptions(data.timeouts), (req, res) => (urlPath(req.url) === INGRESS_PATH ? handler(req, res) : forwarder.forward(req, res)));
    server.setTimeout(data.timeouts.idleTimeoutMs);
    return server;
  });
  void app.register(async (scope) => registerIngressRoute(scope.withTypeProvider<ZodTypeProvider>(), ctx));

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // A keep-alive connection whose request was in flight when closing began goes idle only once
      // answered; node closes idle connections once, at `close`: close them as they go idle.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      await app.close().catch((e: unknown) => logger.warn("ingress thread: closing the server failed", { error: errorMessage(e) }));
      clearInterval(sweep);
      news.flush();
      await pool.end().catch(() => undefined);
      post({ t: "closed" });
      port.close();
    })());
  port.on("message", (m: ToIngress) => {
    if (m.t === "answer") forwarder.answer(m.id, m.status, m.headers, m.body);
    else if (m.t === "state") state = m.state;
    else void close();
  });
  try {
    await app.listen({ host: data.host, port: data.port });
  } catch (e) {
    post({ t: "listen-failed", error: errorMessage(e) });
    await pool.end().catch(() => undefined);
    port.close();
    return;
  }
  const address = app.server.address();
  post({ t: "listening", address: typeof address === "object" && address ? address.address : data.host, port: typeof address === "object" && address ? address.port : data.port });
}

/** Collects appends and answered requests, posted in one message at the end of this turn of the loop. */
function newsBatcher(post: (m: FromIngress) => void): { appended(a: AppendedElsewhere): void; observed(o: ObservedRequest): void; flush(): void } {
  let appended: AppendedElsewhere[] = [];
  let observed: ObservedRequest[] = [];
  let due: NodeJS.Immediate | undefined;
  const flush = () => {
    due = undefined;
    if (appended.length === 0 && observed.length === 0) return;
    post({ t: "news", appended, observed });
    appended = [];
    observed = [];
  };
  const schedule = () => void (due ??= setImmediate(flush));
  return {
    appended: (a) => {
      appended.push(a);
      schedule();
    },
    observed: (o) => {
      observed.push(o);
      schedule();
    },
    flush: () => {
      if (due) clearImmediate(due);
      flush();
    },
  };
}

/** Headers that describe one connection or one body's framing: the thread sets its own. */
const HOP_HEADERS = ["connection", "keep-alive", "transfer-encoding", "content-length"];

/**
 * Hands a request to the main thread and writes its answer back. The body is read up to one byte
 * past `maxBodyBytes` (the largest any route takes) — enough for the main app to refuse it (413)
 * as its limits say — and no further: such a connection is closed once answered.
 */
function forwardTo(post: (m: FromIngress) => void, maxBodyBytes: number) {
  let next = 0;
  const pending = new Map<number, { req: IncomingMessage; res: ServerResponse; over: boolean }>();
  return {
    forward(req: IncomingMessage, res: ServerResponse): void {
      const chunks: Buffer[] = [];
      let size = 0;
      let sent = false;
      const send = (over: boolean) => {
        if (sent) return;
        sent = true;
        const id = (next += 1);
        pending.set(id, { req, res, over });
        const body = Buffer.concat(chunks);
        const headers: Record<string, string | string[] | undefined> = { ...req.headers };
        for (const h of HOP_HEADERS) delete headers[h];
        if (body.length > 0 || req.headers["content-length"] !== undefined) headers["content-length"] = String(body.length);
        post({ t: "request", id, method: req.method ?? "GET", url: req.url ?? "/", headers, body, remoteAddress: req.socket.remoteAddress });
      };
      req.on("data", (chunk: Buffer) => {
        if (sent) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size > maxBodyBytes) {
          req.pause();
          send(true);
        }
      });
      req.on("end", () => send(false));
      req.on("error", () => pending.forEach((p, id) => p.req === req && pending.delete(id)));
    },
    answer(id: number, status: number, headers: Readonly<Record<string, unknown>>, body: Uint8Array): void {
      const p = pending.get(id);
      pending.delete(id);
      if (!p || p.res.destroyed) return;
      const out: Record<string, string | number | string[]> = {};
      for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP_HEADERS.includes(k)) out[k] = v as string | number | string[];
      // A HEAD answer declares the length a GET would have sent.
      out["content-length"] = p.req.method === "HEAD" ? ((headers["content-length"] as string | undefined) ?? body.length) : body.length;
      if (p.over) {
        out.connection = "close";
        p.res.once("finish", () => p.req.destroy());
      }
      p.res.writeHead(status, out);
      p.res.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    },
  };
}
