/**
 * `httpTaskDispatcher` (issue 21) against an executing system on node:http: core's
 * `TaskDispatcher` contract (accepted with the same number on a repeat, refused, failed, outage,
 * aborted, cancelled, too late), then what the wire carries — the body, `Idempotency-Key`, the
 * bearer token — and the edges of the mapping: 408/429 are transient, a 2xx without a number is a
 * failure, a refused connection and a slow system are outages, none of them spends an answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isMsgxError } from "@msgx/core";
import { newTaskRecord, type TaskRecord } from "@msgx/tasks";
import { describeTaskDispatcherContract, sampleNewTask } from "@msgx/tasks/testing";
import { afterEach, describe, expect, it } from "vitest";
import { httpTaskDispatcher, type DispatchCallOutcome } from "../src/tasks/http-task-dispatcher.js";

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: Record<string, unknown>;
}

/**
 * An executing system: numbers accepted tasks `ACS-<n>` (once per task id), finishes and cancels
 * them (a cancel of a task it never accepted is done at once), answers scripted faults.
 */
async function acs() {
  const held = new Map<string, { no: string; status: "ACCEPTED" | "FINISHED" | "CANCELLED" }>();
  const script: { status: number; body: string }[] = [];
  const seen: Seen[] = [];
  let down = false;
  let hang = false;
  let next = 1;
  const send = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(typeof body === "string" ? body : JSON.stringify(body));
  const server: Server = createServer((req, res) => {
    if (down) return void req.socket.destroy();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (hang) return;
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
      seen.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
      const scripted = script.shift();
      if (scripted) return send(res, scripted.status, scripted.body);
      if (req.url === "/api/tasks") {
        const taskId = String(req.headers["idempotency-key"]);
        let t = held.get(taskId);
        if (!t) held.set(taskId, (t = { no: `ACS-${next++}`, status: "ACCEPTED" }));
        return send(res, 201, { externalTaskNo: t.no });
      }
      const cancel = /^\/api\/tasks\/([^/]+)\/cancel$/.exec(req.url ?? "");
      const t = cancel ? [...held.values()].find((h) => h.no === decodeURIComponent(cancel[1]!)) : undefined;
      // A task it never accepted: nothing runs there, so the cancel is done (the protocol's answer, docs/task-routing.md).
      if (!t) return send(res, 200, { status: "CANCELLED" });
      if (t.status === "FINISHED") return send(res, 409, { status: "FINISHED" });
      t.status = "CANCELLED";
      return send(res, 200, { status: "CANCELLED" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  return {
    url,
    seen,
    held,
    script: (status: number, body: string) => void script.push({ status, body }),
    setDown: (d: boolean) => void (down = d),
    setHang: (h: boolean) => void (hang = h),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describeTaskDispatcherContract("httpTaskDispatcher over node:http", async () => {
  const system = await acs();
  return {
    dispatcher: httpTaskDispatcher({ url: system.url, timeoutMs: 5_000 }),
    scriptNext: async (fault, reason) => system.script(fault === "refuse" ? 422 : 503, JSON.stringify({ error: reason })),
    setDown: async (d) => system.setDown(d),
    finish: async (taskId) => {
      const t = system.held.get(taskId);
      if (t) t.status = "FINISHED";
    },
    close: system.close,
  };
});

const T0 = Date.UTC(2026, 6, 13, 8, 0, 0);
const task = (id: string, extra: Partial<TaskRecord> = {}): TaskRecord => ({ ...newTaskRecord({ ...sampleNewTask(id), externalTaskType: "3", payload: { from: "A1", to: "B2" } }, T0, "T202607130001", T0), ...extra });
const outageOf = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isMsgxError(e) && e.kind).toBe("DEPENDENCY_UNAVAILABLE");
  return (e as Error).message;
};

describe("httpTaskDispatcher on the wire", () => {
  let system: Awaited<ReturnType<typeof acs>>;
  afterEach(async () => system?.close());

  it("posts the task with Idempotency-Key = taskId and the bearer token; cancels by the external number", async () => {
    system = await acs();
    const outcomes: DispatchCallOutcome[] = [];
    const d = httpTaskDispatcher({ url: `${system.url}/`, token: "acs-secret", timeoutMs: 5_000, observe: (o) => outcomes.push(o) });
    expect(await d.dispatch(task("T-1"))).toEqual({ kind: "accepted", externalTaskNo: "ACS-1" });
    const [sent] = system.seen;
    expect(sent).toMatchObject({ method: "POST", path: "/api/tasks", headers: { "idempotency-key": "T-1", authorization: "Bearer acs-secret", "content-type": "application/json" } });
    const seed = sampleNewTask("T-1");
    expect(sent!.body).toEqual({
      taskId: "T-1",
      taskNo: "T202607130001",
      externalSystem: "ACS",
      externalTaskType: "3",
      bizType: seed.bizType,
      bizId: seed.bizId,
      startPointCode: seed.startPointCode,
      endPointCode: seed.endPointCode,
      vehicleCode: seed.vehicleCode,
      payload: { from: "A1", to: "B2" },
    });
    expect(await d.cancel(task("T-1", { status: "DISPATCHED", externalTaskNo: "ACS-1" }), "operator cancel")).toEqual({ kind: "cancelled" });
    expect(system.seen[1]).toMatchObject({ path: "/api/tasks/ACS-1/cancel", body: { taskId: "T-1", reason: "operator cancel" } });
    expect(outcomes).toEqual(["accepted", "cancelled"]);
  });

  it("refused carries the body; 408 and 429 are transient like 5xx; a 2xx without a number is a failure; a 409 not FINISHED is a failed cancel", async () => {
    system = await acs();
    const d = httpTaskDispatcher({ url: system.url, timeoutMs: 5_000 });
    system.script(400, '{"error":"unknown task type 99"}');
    expect(await d.dispatch(task("T-2"))).toEqual({ kind: "refused", reason: 'HTTP 400: {"error":"unknown task type 99"}' });
    for (const status of [408, 429, 500, 503]) {
      system.script(status, "busy");
      expect(await d.dispatch(task("T-2")), String(status)).toEqual({ kind: "failed", reason: `HTTP ${status}: busy` });
    }
    system.script(200, '{"ok":true}');
    expect(await d.dispatch(task("T-2"))).toMatchObject({ kind: "failed", reason: expect.stringMatching(/without an externalTaskNo/) });
    system.script(409, '{"status":"EXECUTING"}');
    expect(await d.cancel(task("T-2", { externalTaskNo: "ACS-9" }), "x")).toEqual({ kind: "failed", reason: 'HTTP 409: {"status":"EXECUTING"}' });
    system.script(409, '{"status":"FINISHED"}');
    expect(await d.cancel(task("T-2", { externalTaskNo: "ACS-9" }), "x")).toEqual({ kind: "too-late", status: "FINISHED" });
  });

  it("a refused connection and a system slower than timeoutMs are outages, counted as such", async () => {
    system = await acs();
    const outcomes: DispatchCallOutcome[] = [];
    const closed = await acs();
    const deadUrl = closed.url;
    await closed.close();
    expect(await outageOf(httpTaskDispatcher({ url: deadUrl, timeoutMs: 5_000, observe: (o) => outcomes.push(o) }).dispatch(task("T-3")))).toMatch(/dispatch call failed/);
    system.setHang(true);
    const slow = httpTaskDispatcher({ url: system.url, timeoutMs: 200, observe: (o) => outcomes.push(o) });
    expect(await outageOf(slow.dispatch(task("T-3")))).toMatch(/no answer within 200 ms/);
    expect(await outageOf(slow.cancel(task("T-3", { externalTaskNo: "ACS-1" }), "x"))).toMatch(/cancel call failed: no answer within 200 ms/);
    expect(outcomes).toEqual(["outage", "outage", "outage"]);
  });
});
