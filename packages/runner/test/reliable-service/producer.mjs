// A producer service with no msgx code: it talks to the reliable-message service over HTTP only
// (global fetch), as docs/reliable-message.md's curl examples do.
//
//   node producer.mjs --url http://127.0.0.1:<port> [--token T] '<steps as JSON>'
//
// Steps run in order; each is one call:
//   {"op": "prepare", "id", "queue", "body", "headers"?, "checkDelayMs"?, "delayMs"?, "deliverAt"?, "confirm"?}  POST /rm/v1/messages[?confirm=true]
//   {"op": "confirm", "id", "delayMs"?, "deliverAt"?, "deliverInMs"?}             POST /rm/v1/messages/<id>/confirm
//     (deliverInMs: a deliverAt taken as now + deliverInMs just before the call, echoed as "deliverAt" in the line)
//   {"op": "cancel" | "ack", "id"}                                                POST /rm/v1/messages/<id>/<op>
//   {"op": "reject", "id", "reason"}                                              POST /rm/v1/messages/<id>/reject
//   {"op": "get", "id"}                                                           GET  /rm/v1/messages/<id>
//   {"op": "replay-dead", "queue"}                                                POST /rm/v1/queues/<queue>/replay-dead
//   {"op": "direct-send", "id", "queue", "body", "headers"?}                      POST /rm/v1/direct-sends
//   {"op": "acks", "ids": [...]}                                                  POST /rm/v1/acks {messageIds}
//   "subscription" on ack, reject and acks: ?subscription= (a queue with subscriptions)
//   {"op": "resend" | "mark-dead", "id", "subscription"?}                           POST /admin/reliable-messages/<id>/<op>[?subscription=] (admin token)
//   {"op": "delete", "id", "operator"?}                                           DELETE /admin/reliable-messages/<id>?operator= (admin token: --admin-token)
// Prints one JSON line per step: {"op", "id", "status": <HTTP status>, "body": <JSON answer>}; exits 0
// once every step has an answer (whatever its status: the test judges), 1 when the service is unreachable.
const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const base = arg("url");
const token = arg("token");
const adminToken = arg("admin-token");
const steps = JSON.parse(process.argv.at(-1));

const call = async (method, path, body, bearer = token) => {
  const headers = { ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) };
  const res = await fetch(new URL(path, base), { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  let json;
  try {
    json = text === "" ? null : JSON.parse(text);
  } catch {
    json = { unparsed: text };
  }
  return { status: res.status, body: json };
};
const at = (id) => `/rm/v1/messages/${encodeURIComponent(id)}`;
const sub = (step) => (step.subscription === undefined ? "" : `?subscription=${encodeURIComponent(step.subscription)}`);

for (const step of steps) {
  let answer;
  switch (step.op) {
    case "prepare": {
      const { op, id, confirm, ...rest } = step;
      answer = await call("POST", `/rm/v1/messages${confirm ? "?confirm=true" : ""}`, { messageId: id, ...rest });
      break;
    }
    case "confirm": {
      const deliverAt = step.deliverInMs !== undefined ? Date.now() + step.deliverInMs : step.deliverAt;
      answer = await call("POST", `${at(step.id)}/confirm`, { ...(step.delayMs !== undefined ? { delayMs: step.delayMs } : {}), ...(deliverAt !== undefined ? { deliverAt } : {}) });
      if (deliverAt !== undefined) answer = { ...answer, deliverAt };
      break;
    }
    case "cancel":
    case "ack":
      answer = await call("POST", `${at(step.id)}/${step.op}${sub(step)}`, {});
      break;
    case "reject":
      answer = await call("POST", `${at(step.id)}/reject${sub(step)}`, { reason: step.reason });
      break;
    case "resend":
    case "mark-dead":
      answer = await call("POST", `/admin/reliable-messages/${encodeURIComponent(step.id)}/${step.op}${sub(step)}`, undefined, adminToken);
      break;
    case "get":
      answer = await call("GET", at(step.id));
      break;
    case "replay-dead":
      answer = await call("POST", `/rm/v1/queues/${encodeURIComponent(step.queue)}/replay-dead`, {});
      break;
    case "direct-send": {
      const { op, id, ...rest } = step;
      answer = await call("POST", "/rm/v1/direct-sends", { messageId: id, ...rest });
      break;
    }
    case "acks":
      answer = await call("POST", `/rm/v1/acks${sub(step)}`, { messageIds: step.ids });
      break;
    case "delete":
      answer = await call("DELETE", `/admin/reliable-messages/${encodeURIComponent(step.id)}${step.operator ? `?operator=${encodeURIComponent(step.operator)}` : ""}`, undefined, adminToken);
      break;
    default:
      throw new Error(`unknown step ${JSON.stringify(step)}`);
  }
  process.stdout.write(`${JSON.stringify({ op: step.op, id: step.id ?? step.queue ?? null, ...answer })}\n`);
}
