import { request } from "node:http";
import { MsgxError } from "@msgx/core";
import type { TaskCallback, TaskCallbackPort } from "./task-routing.js";

/** The task service's callback route (seed 001 §9.1). */
export const CALLBACK_ROUTE = "/rpc-api/task/callback-result";

/**
 * `TaskCallbackPort` over HTTP: `POST <taskServiceUrl>/rpc-api/task/callback-result` with the
 * callback as JSON. 2xx: recorded. 4xx: refused for good (non-retriable `PROTOCOL`). 5xx, a
 * connection error or no answer within `timeoutMs`: `DEPENDENCY_UNAVAILABLE` (the sender retries).
 */
export function httpCallbackPort(taskServiceUrl: string, timeoutMs = 5_000): TaskCallbackPort {
  const url = new URL(CALLBACK_ROUTE, taskServiceUrl);
  return {
    report: (callback: TaskCallback, signal?: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        const body = JSON.stringify(callback);
        const req = request(
          url,
          { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }, timeout: timeoutMs, ...(signal ? { signal } : {}) },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (c: Buffer) => chunks.push(c));
            res.on("error", (e) => reject(new MsgxError("DEPENDENCY_UNAVAILABLE", `task service answer lost: ${e.message}`, { cause: e })));
            res.on("end", () => {
              const status = res.statusCode ?? 0;
              const text = Buffer.concat(chunks).toString("utf8").slice(0, 500);
              if (status >= 200 && status < 300) resolve();
              else if (status >= 400 && status < 500) reject(new MsgxError("PROTOCOL", `task service refused the callback (${status}): ${text}`, { retriable: false }));
              else reject(new MsgxError("DEPENDENCY_UNAVAILABLE", `task service answered ${status}: ${text}`));
            });
          },
        );
        req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        req.on("error", (e) => reject(new MsgxError("DEPENDENCY_UNAVAILABLE", `task service is unavailable: ${e.message}`, { cause: e })));
        req.end(body);
      }),
  };
}
