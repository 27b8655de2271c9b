// The executing system (the seed's ACS, the AGV control system) as another team would write it, with
// no msgx code: plain node:http for what the task service's HTTP dispatcher calls, and fetch for the
// feedback it posts back to the task service (docs/task-routing.md "Hosted by the msgx runner").
//
//   node executing-system.mjs --token <the task service's bearer token>
//
// Answers the dispatcher:
//   POST /tasks {taskId, externalSystem, externalTaskType, bizType, bizId, payload}, header
//        Idempotency-Key: <taskId> → 200 {externalTaskNo}; a repeat for the same task gets the same
//        number. While the task is set "unavailable" (below) it answers 503 instead (transient); a
//        task set "refused" is answered 422 {error} (this system will never take it); for a task set
//        "dropped" the connection is closed unanswered (an outage, as a crash or a network cut).
//   POST /tasks/<externalTaskNo>/cancel {taskId, reason} → 200 {cancelled: true}; 409
//        {status: "FINISHED"} once this system finished the task itself. The task service asks by
//        task id for a task whose dispatch answer it may have lost: a task this system holds is
//        found by its id too, and one it never accepted is answered 200 (nothing runs here), as
//        the dispatcher protocol asks.
// The test steers it over HTTP (the task service's URL is known only once the runner, configured with
// this system's URL, listens):
//   POST /control {"runner": "<task service base url>", "unavailable": {"<taskId>": true|false},
//                  "refused": {"<taskId>": "<reason>"}, "dropped": {"<taskId>": true|false}}   merged in
//   POST /control/report {taskId, status: EXECUTING|FINISHED|CANCELLED, progress?, message?}
//        posts that feedback to the task service (POST <runner>/task/v1/tasks/<taskId>/feedback, a new
//        externalEventId per report) and answers {status, body} — the task service's answer
//   POST /control/finish-locally {taskId}   this system finished the task and has not reported it yet
//   GET  /calls   every dispatcher call so far: [{op: "dispatch"|"cancel", taskId, externalTaskNo, status, at, idempotencyKey, auth, body}]
// Prints `executing system listening on http://127.0.0.1:<port>` once, then one JSON line per call.
import { createServer } from "node:http";

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
let runner;
const token = arg("token");

/** taskId → externalTaskNo, the idempotency of dispatch. */
const accepted = new Map();
/** externalTaskNo → "RUNNING" | "CANCELLED" | "FINISHED". */
const state = new Map();
const unavailable = new Map();
const refused = new Map();
const dropped = new Map();
const calls = [];
let seq = 0;
let reports = 0;

const readJson = async (req) => {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text === "" ? {} : JSON.parse(text);
};
const send = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};
const record = (call) => {
  calls.push(call);
  process.stdout.write(`${JSON.stringify({ call: { op: call.op, taskId: call.taskId, externalTaskNo: call.externalTaskNo, status: call.status } })}\n`);
};

/** Posts one feedback to the task service, as the executing system reports progress and outcomes. */
async function report(body) {
  reports += 1;
  const no = accepted.get(body.taskId) ?? "none";
  const feedback = {
    externalEventId: `${no}:${body.status}:${reports}`,
    status: body.status,
    ...(body.progress === undefined ? {} : { progress: body.progress }),
    ...(body.message === undefined ? {} : { message: body.message }),
  };
  const res = await fetch(new URL(`/task/v1/tasks/${encodeURIComponent(body.taskId)}/feedback`, runner), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(feedback),
  });
  const text = await res.text();
  if (body.status === "FINISHED" && no !== "none") state.set(no, "FINISHED");
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, feedback };
}

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url, "http://acs");
    const at = Date.now();
    if (req.method === "POST" && url.pathname === "/control") {
      const body = await readJson(req);
      if (typeof body.runner === "string") runner = body.runner;
      for (const [id, v] of Object.entries(body.unavailable ?? {})) unavailable.set(id, v === true);
      for (const [id, reason] of Object.entries(body.refused ?? {})) refused.set(id, String(reason));
      for (const [id, v] of Object.entries(body.dropped ?? {})) dropped.set(id, v === true);
      return send(res, 200, { ok: true });
    }
    if (req.method === "POST" && url.pathname === "/control/report") return send(res, 200, await report(await readJson(req)));
    if (req.method === "POST" && url.pathname === "/control/finish-locally") {
      const { taskId } = await readJson(req);
      const no = accepted.get(taskId);
      if (no === undefined) return send(res, 404, { error: "not dispatched here" });
      state.set(no, "FINISHED");
      return send(res, 200, { externalTaskNo: no });
    }
    if (req.method === "GET" && url.pathname === "/calls") return send(res, 200, calls);
    const auth = req.headers.authorization ?? null;
    const idempotencyKey = req.headers["idempotency-key"] ?? null;
    if (req.method === "POST" && url.pathname === "/tasks") {
      const body = await readJson(req);
      const taskId = body.taskId;
      if (unavailable.get(taskId) === true) {
        record({ op: "dispatch", taskId, externalTaskNo: null, status: 503, at, idempotencyKey, auth, body });
        return send(res, 503, { error: "vehicle fleet busy, try again" });
      }
      if (dropped.get(taskId) === true) {
        record({ op: "dispatch", taskId, externalTaskNo: null, status: 0, at, idempotencyKey, auth, body });
        return req.socket.destroy();
      }
      if (refused.has(taskId)) {
        record({ op: "dispatch", taskId, externalTaskNo: null, status: 422, at, idempotencyKey, auth, body });
        return send(res, 422, { error: refused.get(taskId) });
      }
      let no = accepted.get(taskId);
      if (no === undefined) {
        no = `ACS-${++seq}`;
        accepted.set(taskId, no);
        state.set(no, "RUNNING");
      }
      record({ op: "dispatch", taskId, externalTaskNo: no, status: 200, at, idempotencyKey, auth, body });
      return send(res, 200, { externalTaskNo: no });
    }
    const m = /^\/tasks\/([^/]+)\/cancel$/.exec(url.pathname);
    if (req.method === "POST" && m) {
      const asked = decodeURIComponent(m[1]);
      const no = state.has(asked) ? asked : (accepted.get(asked) ?? asked);
      const body = await readJson(req);
      const now = state.get(no);
      let status = 200;
      let answer = { cancelled: true };
      if (now === "FINISHED") [status, answer] = [409, { status: "FINISHED" }];
      else if (now !== undefined) state.set(no, "CANCELLED");
      record({ op: "cancel", taskId: body.taskId, externalTaskNo: no, status, at, idempotencyKey, auth, body });
      return send(res, status, answer);
    }
    return send(res, 404, { error: "not found" });
  } catch (e) {
    return send(res, 400, { error: String(e) });
  }
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`executing system listening on http://127.0.0.1:${server.address().port}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
