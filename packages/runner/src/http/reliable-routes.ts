import type { IncomingMessage, ServerResponse } from "node:http";
import { ReliableMessageStatus, type ReliableMessageFilter } from "@msgx/core";
import type { ReliableAdminApi } from "../reliable/reliable-admin.js";

/**
 * `/admin/reliable-messages…` (behind the admin token): list, show, resend, mark dead, resend the
 * dead messages of a queue. Returns false when the path is not one of these.
 */
export async function reliableRoute(api: ReliableAdminApi, _req: IncomingMessage, res: ServerResponse, url: URL, method: string): Promise<boolean> {
  const parts = url.pathname.split("/").filter(Boolean);
  if (parts[1] !== "reliable-messages") return false;
  const json = (status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };
  const q = url.searchParams;
  if (method === "GET" && parts.length === 2) {
    const status = q.get("status");
    if (status && !Object.values(ReliableMessageStatus).includes(status as ReliableMessageStatus)) return json(400, { error: `unknown status ${status}` }), true;
    const filter: ReliableMessageFilter = {
      ...(q.get("queue") ? { consumerQueue: q.get("queue")! } : {}),
      ...(status ? { status: status as ReliableMessageStatus } : {}),
      ...(q.get("dead") === "true" ? { dead: true } : q.get("dead") === "false" ? { dead: false } : {}),
    };
    json(200, await api.list(filter, Number(q.get("page") ?? 1), Math.min(500, Number(q.get("size") ?? 20))));
    return true;
  }
  if (method === "POST" && parts[2] === "resend-dead") {
    const queue = q.get("queue");
    if (!queue) return json(400, { error: "queue is required" }), true;
    json(200, await api.resendDead(queue, Number(q.get("size") ?? 100)));
    return true;
  }
  const id = parts[2] ? decodeURIComponent(parts[2]) : undefined;
  if (id && method === "GET" && parts.length === 3) {
    const m = await api.get(id);
    json(m ? 200 : 404, m ?? { error: "no such message" });
    return true;
  }
  if (id && method === "POST" && parts[3] === "resend") return json(200, await api.resend(id)), true;
  if (id && method === "POST" && parts[3] === "mark-dead") return json(200, await api.markDead(id)), true;
  return false;
}
