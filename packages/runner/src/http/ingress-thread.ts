import { Worker } from "node:worker_threads";
import { errorMessage, type AppendedElsewhere, type Logger } from "@msgx/core";
import type { HttpApp } from "./http-app.js";
import type { ForwardedRequest, FromIngress, IngressState, IngressWorkerData, ObservedRequest, ToIngress } from "./ingress-messages.js";

/** The ingress thread as the main thread sees it. */
export interface IngressThread {
  readonly url: string;
  /** Tells the thread whether to take messages (503 otherwise, naming `role`). */
  setState(state: IngressState): void;
  /** The running thread's id (it changes when a crashed thread is replaced). */
  readonly threadId: number;
  /** Threads started after one ended by itself. */
  readonly restarts: number;
  /** Stops accepting, lets in-flight requests be answered, ends the thread. Safe more than once. */
  close(): Promise<void>;
  /** The running thread's event-loop use since it started (`Worker.performance`; benchmarks). */
  eventLoopUtilization(): { readonly idle: number; readonly active: number };
  /** Ends the running thread at once, as a crash would (tests); another is started. */
  kill(): Promise<void>;
}

export interface IngressThreadOptions {
  readonly file: URL;
  readonly data: IngressWorkerData;
  /** The main thread's app (ready, not listening): answers every request the thread hands over. */
  readonly app: HttpApp;
  readonly logger: Logger;
  /** Rows the thread committed: the pipeline keeps their texts and wakes the intake. */
  onAppended(appends: readonly AppendedElsewhere[]): void;
  onObserved(observed: readonly ObservedRequest[]): void;
}

/** How long `close` waits for the thread to answer what it has in flight before it is terminated. */
const CLOSE_GRACE_MS = 30_000;
const RESTART_DELAYS_MS = [100, 500, 1_000, 5_000];

/**
 * Starts the ingress thread (`serve-ingress.ts`) and resolves once it listens; rejects when it
 * cannot (the port is taken), as `listen` would. A thread that ends by itself — a crash — is
 * logged as an error and started again on the same port (after 0.1 s, then up to 5 s between
 * attempts), so the runner never stays deaf; the requests it had in flight are lost with it
 * (their clients see the connection close; a committed append's text is then read from MariaDB).
 */
export async function startIngressThread(o: IngressThreadOptions): Promise<IngressThread> {
  let data = o.data;
  let worker: Worker;
  let closing: Promise<void> | undefined;
  let restarts = 0;
  let failedStarts = 0;
  const post = (m: ToIngress) => worker.postMessage(m);

  const answer = async (w: Worker, m: ForwardedRequest) => {
    let reply: ToIngress;
    try {
      const res = await o.app.inject({ method: m.method as "GET", url: m.url, headers: m.headers as Record<string, string>, payload: Buffer.from(m.body.buffer, m.body.byteOffset, m.body.byteLength), ...(m.remoteAddress ? { remoteAddress: m.remoteAddress } : {}) });
      reply = { t: "answer", id: m.id, status: res.statusCode, headers: res.headers, body: res.rawPayload };
    } catch (e) {
      o.logger.error("http request failed", { method: m.method, error: errorMessage(e) });
      const body = Buffer.from(JSON.stringify({ error: "internal error", message: errorMessage(e) }));
      reply = { t: "answer", id: m.id, status: 500, headers: { "content-type": "application/json; charset=utf-8" }, body };
    }
    w.postMessage(reply);
  };

  /** Starts a thread; resolves with its address once it listens. */
  const spawn = () =>
    new Promise<{ address: string; port: number }>((resolve, reject) => {
      const w = (worker = new Worker(o.file, { workerData: data, stdout: false, stderr: false }));
      let listening = false;
      w.on("message", (m: FromIngress) => {
        if (m.t === "request") void answer(w, m);
        else if (m.t === "news") {
          if (m.appended.length > 0) o.onAppended(m.appended);
          if (m.observed.length > 0) o.onObserved(m.observed);
        } else if (m.t === "listening") {
          listening = true;
          failedStarts = 0;
          // Closed while this one was starting (after a crash): it goes too.
          if (closing) w.postMessage({ t: "close" } satisfies ToIngress);
          resolve(m);
        } else if (m.t === "listen-failed") reject(new Error(m.error));
      });
      w.on("error", (e) => o.logger.error("ingress thread failed", { error: errorMessage(e) }));
      w.once("exit", (code) => {
        if (!listening) reject(new Error(`the ingress thread ended before it listened (exit code ${code})`));
        else if (!closing && w === worker) {
          o.logger.error("ingress thread ended; starting another", { exitCode: code });
          void restart();
        }
      });
    });

  const restart = async (): Promise<void> => {
    while (!closing) {
      await new Promise((r) => setTimeout(r, RESTART_DELAYS_MS[Math.min(failedStarts, RESTART_DELAYS_MS.length - 1)]));
      if (closing) return;
      try {
        await spawn();
        restarts += 1;
        return;
      } catch (e) {
        failedStarts += 1;
        o.logger.error("ingress thread could not start again; retrying", { error: errorMessage(e) });
      }
    }
  };

  const first = await spawn();
  // A restarted thread takes the port the first one got (`http.port` 0 picks one once).
  data = { ...data, port: first.port };
  const host = first.address.includes(":") ? `[${first.address}]` : first.address;
  return {
    url: `http://${host}:${first.port}`,
    setState: (state) => {
      data = { ...data, state };
      post({ t: "state", state });
    },
    get threadId() {
      return worker.threadId;
    },
    get restarts() {
      return restarts;
    },
    eventLoopUtilization: () => worker.performance.eventLoopUtilization(),
    kill: async () => void (await worker.terminate()),
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        const w = worker;
        if (w.threadId < 0) return resolve();
        const timer = setTimeout(() => {
          o.logger.warn("ingress thread did not end after closing: terminated", { waitedMs: CLOSE_GRACE_MS });
          void w.terminate();
        }, CLOSE_GRACE_MS);
        w.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        w.postMessage({ t: "close" } satisfies ToIngress);
      })),
  };
}
