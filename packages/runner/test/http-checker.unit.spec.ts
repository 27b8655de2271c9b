/**
 * The check-back over HTTP (issue 20): a node:http server plays the producer's checker and answers
 * confirm, cancel, unknown, 500, nonsense, or nothing in time. Only the three verdicts decide;
 * everything else throws, which the check-back job counts as an inconclusive check.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CheckVerdict, ReliableMessageService, type ReliableMessage } from "@msgx/reliable";
import { InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { InMemoryReliableMessageStore } from "@msgx/reliable/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpChecker, type CheckerOutcome } from "../src/reliable/http-checker.js";

interface Seen {
  readonly path: string;
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
  readonly body: Record<string, unknown>;
}

/** What the server answers for a message id (the message id picks the behaviour). */
const behaviours: Record<string, (res: import("node:http").ServerResponse) => void> = {
  confirm: (res) => res.writeHead(200, { "content-type": "application/json" }).end('{"verdict":"confirm"}'),
  cancel: (res) => res.writeHead(200, { "content-type": "application/json" }).end('{"verdict":"cancel"}'),
  unknown: (res) => res.writeHead(200, { "content-type": "application/json" }).end('{"verdict":"unknown"}'),
  failing: (res) => res.writeHead(500, { "content-type": "application/json" }).end('{"error":"boom"}'),
  nonsense: (res) => res.writeHead(200, { "content-type": "application/json" }).end('{"verdict":"yes please"}'),
  html: (res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>ok</html>"),
  created: (res) => res.writeHead(201, { "content-type": "application/json" }).end('{"verdict":"confirm"}'),
  slow: () => undefined, // never answers: the checker's timeout ends the call
};

const seen: Seen[] = [];
let server: Server;
let url = "";

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    seen.push({ path: req.url ?? "", authorization: req.headers.authorization, contentType: req.headers["content-type"], body });
    behaviours[String(body["messageId"])]!(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rm/check`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const clock = new ManualClock();
const service = new ReliableMessageService({ store: new InMemoryReliableMessageStore(clock, new InMemoryPipelineStore(clock)), clock });
/** Prepares `messageId` (a repeat of the same prepare answers the stored message). */
const prepared = (messageId: string): Promise<ReliableMessage> =>
  service.saveWaitingConfirm({ messageId, consumerQueue: "orders", body: '{"order":42}', dataType: "order", field1: "bank-7" });

describe("httpChecker", () => {
  it("posts the message as JSON with the bearer token and maps confirm, cancel and unknown to the job's verdicts", async () => {
    const outcomes: CheckerOutcome[] = [];
    const check = httpChecker({ url, token: "checker-secret", timeoutMs: 5_000, observe: (o) => outcomes.push(o) });
    expect(await check(await prepared("confirm"))).toBe(CheckVerdict.CONFIRM);
    expect(await check(await prepared("cancel"))).toBe(CheckVerdict.DELETE);
    expect(await check(await prepared("unknown"))).toBe(CheckVerdict.LATER);
    expect(outcomes).toEqual(["confirm", "cancel", "unknown"]);
    const first = seen.find((s) => s.body["messageId"] === "confirm")!;
    expect(first.path).toBe("/rm/check");
    expect(first.authorization).toBe("Bearer checker-secret");
    expect(first.contentType).toBe("application/json");
    expect(first.body).toEqual({
      messageId: "confirm",
      queue: "orders",
      dataType: "order",
      body: '{"order":42}',
      headers: null,
      field1: "bank-7",
      field2: null,
      field3: null,
      checkCount: 0,
      createdAt: clock.now(),
    });
  });

  it("sends no authorization header without a token", async () => {
    await httpChecker({ url, timeoutMs: 5_000 })(await prepared("unknown"));
    expect(seen.at(-1)!.authorization).toBeUndefined();
  });

  it("throws (an inconclusive check) for a 500, another 2xx, a body that is not JSON, and an unknown verdict", async () => {
    const outcomes: CheckerOutcome[] = [];
    const check = httpChecker({ url, timeoutMs: 5_000, observe: (o) => outcomes.push(o) });
    await expect(check(await prepared("failing"))).rejects.toThrow(/HTTP 500/);
    await expect(check(await prepared("created"))).rejects.toThrow(/HTTP 201/);
    await expect(check(await prepared("html"))).rejects.toThrow(/not JSON/);
    await expect(check(await prepared("nonsense"))).rejects.toThrow(/verdict "yes please"/);
    expect(outcomes).toEqual(["error", "error", "error", "error"]);
  });

  it("throws once its timeout passed when the checker does not answer, and reports a timeout", async () => {
    const outcomes: CheckerOutcome[] = [];
    const check = httpChecker({ url, timeoutMs: 200, observe: (o) => outcomes.push(o) });
    await expect(check(await prepared("slow"))).rejects.toThrow(/did not answer within 200 ms/);
    expect(outcomes).toEqual(["timeout"]);
  });

  it("throws for a refused connection", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const outcomes: CheckerOutcome[] = [];
    await expect(httpChecker({ url: `http://127.0.0.1:${port}/`, timeoutMs: 5_000, observe: (o) => outcomes.push(o) })(await prepared("confirm"))).rejects.toThrow();
    expect(outcomes).toEqual(["error"]);
  });

  it("ends at once, without reporting a timeout, when the job's own signal aborts (a stop)", async () => {
    const outcomes: CheckerOutcome[] = [];
    const stop = new AbortController();
    const call = httpChecker({ url, timeoutMs: 60_000, observe: (o) => outcomes.push(o) })(await prepared("slow"), stop.signal);
    setTimeout(() => stop.abort(), 50);
    await expect(call).rejects.toThrow();
    expect(outcomes).toEqual(["error"]);
  });
});
