// A producer's check-back endpoint, as a producer service with no msgx code would write it: plain
// node:http. The reliable-message service POSTs `{messageId, queue, …, checkCount}` to
// /check/<queue> for a message prepared and never confirmed or cancelled; the answer is
// 200 {"verdict": "confirm" | "cancel" | "unknown"}.
//
//   node checker.mjs [--token T]
//
// Prints `checker listening on http://127.0.0.1:<port>` once, then one JSON line per call.
// The test steers it over HTTP:
//   POST /control {"verdicts": {"<messageId>": "confirm" | "cancel" | "unknown"},
//                  "failForMs": {"<queue>": <ms>}}   merged in; a queue failing answers 500
//   GET  /calls   every call so far: [{queue, messageId, checkCount, at, status, verdict, auth}]
// Without --token any caller is answered; with it a call without `Authorization: Bearer T` is 401.
import { createServer } from "node:http";

const arg = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const token = arg("token");
const verdicts = new Map();
const failingUntil = new Map();
const calls = [];

const readJson = async (req) => {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text === "" ? {} : JSON.parse(text);
};
const send = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url, "http://checker");
    if (req.method === "POST" && url.pathname === "/control") {
      const body = await readJson(req);
      for (const [id, v] of Object.entries(body.verdicts ?? {})) verdicts.set(id, v);
      for (const [queue, ms] of Object.entries(body.failForMs ?? {})) failingUntil.set(queue, Date.now() + ms);
      return send(res, 200, { ok: true });
    }
    if (req.method === "GET" && url.pathname === "/calls") return send(res, 200, calls);
    const m = /^\/check\/([^/]+)$/.exec(url.pathname);
    if (req.method !== "POST" || !m) return send(res, 404, { error: "not found" });
    const queue = decodeURIComponent(m[1]);
    const body = await readJson(req);
    const auth = req.headers.authorization ?? null;
    const call = { queue, messageId: body.messageId, checkCount: body.checkCount, at: Date.now(), auth, request: body };
    let status = 200;
    let verdict = null;
    if (token !== undefined && auth !== `Bearer ${token}`) status = 401;
    else if ((failingUntil.get(queue) ?? 0) > Date.now()) status = 500;
    else verdict = verdicts.get(body.messageId) ?? "unknown";
    calls.push({ ...call, status, verdict });
    process.stdout.write(`${JSON.stringify({ call: { queue, messageId: body.messageId, checkCount: body.checkCount, status, verdict } })}\n`);
    if (status === 200) return send(res, 200, { verdict });
    return send(res, status, { error: status === 401 ? "unauthorized" : "checker down" });
  } catch (e) {
    return send(res, 400, { error: String(e) });
  }
});
server.listen(0, "127.0.0.1", () => process.stdout.write(`checker listening on http://127.0.0.1:${server.address().port}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
