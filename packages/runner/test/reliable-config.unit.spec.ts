/**
 * The `reliable` section of the runner configuration (issue 20): defaults, the file and `MSGX_RELIABLE_*`
 * forms, and every bad value refused at load as a CONFIG error naming its key.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/load-config.js";
import { serviceOptions } from "../src/config/reliable-schema.js";

const refusedNaming = (env: Record<string, string>, key: RegExp) =>
  expect(() => loadConfig({ env }), JSON.stringify(env)).toThrow(expect.objectContaining({ kind: "CONFIG", message: expect.stringMatching(key) }));

describe("reliable configuration", () => {
  it("has defaults: enabled, topics created on first use, 5 s jobs and checker timeout, 7 days retention, the service's own timing", () => {
    const r = loadConfig({ env: {} }).reliable;
    expect(r).toMatchObject({ enabled: true, createTopics: true, jobIntervalMs: 5_000, checkerTimeoutMs: 5_000, retention: { finishedMs: 604_800_000 }, queues: {} });
    // Unset timing falls through to DEFAULT_RELIABLE_MESSAGE_OPTIONS: one place for each default.
    for (const key of ["checkAfterMs", "checkIntervalMs", "maxCheckIntervalMs", "maxChecks", "afterMaxChecks", "resendWaitsMs", "maxSends", "maxRejects", "rejectWaitsMs", "outageRecheckMs", "token", "defaultCheckerUrl"] as const) {
      expect(r[key], key).toBeUndefined();
    }
  });

  it("reads MSGX_RELIABLE_* variables: lists comma-separated, queues as JSON", () => {
    const r = loadConfig({
      env: {
        MSGX_RELIABLE_ENABLED: "false",
        MSGX_RELIABLE_TOKEN: "rm-token-0123456789",
        MSGX_RELIABLE_CREATE_TOPICS: "false",
        MSGX_RELIABLE_RESEND_WAITS_MS: "1000, 2000,4000",
        MSGX_RELIABLE_REJECT_WAITS_MS: "10",
        MSGX_RELIABLE_MAX_SENDS: "3",
        MSGX_RELIABLE_AFTER_MAX_CHECKS: "dead",
        MSGX_RELIABLE_RETENTION_FINISHED_MS: "60000",
        MSGX_RELIABLE_QUEUES: '{"orders":{"checkerUrl":"http://orders:8080/rm/check","checkerToken":"t","checkAfterMs":30000}}',
        MSGX_RELIABLE_DEFAULT_CHECKER_URL: "https://checker.example/check",
      },
    }).reliable;
    expect(r).toMatchObject({
      enabled: false,
      token: "rm-token-0123456789",
      createTopics: false,
      resendWaitsMs: [1000, 2000, 4000],
      rejectWaitsMs: [10],
      maxSends: 3,
      afterMaxChecks: "dead",
      retention: { finishedMs: 60_000 },
      queues: { orders: { checkerUrl: "http://orders:8080/rm/check", checkerToken: "t", checkAfterMs: 30_000 } },
      defaultCheckerUrl: "https://checker.example/check",
    });
  });

  it("subscriptions per queue reach the service's options; a bad name, a repeat or an overlapping topic prefix is refused naming its key", () => {
    const r = loadConfig({ env: { MSGX_RELIABLE_QUEUES: '{"orders":{"subscriptions":["ledger","audit"]},"mail":{}}' } }).reliable;
    expect(r.subscriptionTopicPrefix).toBe("rmq-sub.");
    expect(serviceOptions(r).subscriptions).toEqual({ orders: ["ledger", "audit"] });
    refusedNaming({ MSGX_RELIABLE_QUEUES: '{"orders":{"subscriptions":["led.ger"]}}' }, /subscriptions\.orders/);
    refusedNaming({ MSGX_RELIABLE_QUEUES: '{"orders":{"subscriptions":["a","a"]}}' }, /subscriptions\.orders names a subscription twice/);
    refusedNaming({ MSGX_RELIABLE_QUEUES: '{"orders":{"subscriptions":[]}}' }, /subscriptions\.orders/);
    refusedNaming({ MSGX_RELIABLE_SUBSCRIPTION_TOPIC_PREFIX: "rmq.sub." }, /subscriptionTopicPrefix/);
  });

  it("reads the same from a config file: arrays and objects as JSON", () => {
    const file = join(mkdtempSync(join(tmpdir(), "msgx-rm-config-")), "msgx.json");
    writeFileSync(file, JSON.stringify({ reliable: { resendWaitsMs: [500, 700], queues: { "pay.v2": { checkAfterMs: 0 } }, maxCheckIntervalMs: 9000 } }));
    const r = loadConfig({ file, env: {} }).reliable;
    expect(r.resendWaitsMs).toEqual([500, 700]);
    expect(r.queues).toEqual({ "pay.v2": { checkAfterMs: 0 } });
    expect(r.maxCheckIntervalMs).toBe(9000);
  });

  it("refuses bad values at load with a CONFIG error naming the key", () => {
    refusedNaming({ MSGX_RELIABLE_MAX_SENDS: "0" }, /reliable\.maxSends/);
    refusedNaming({ MSGX_RELIABLE_MAX_REJECTS: "-1" }, /reliable\.maxRejects/);
    refusedNaming({ MSGX_RELIABLE_JOB_INTERVAL_MS: "soon" }, /reliable\.jobIntervalMs/);
    refusedNaming({ MSGX_RELIABLE_CHECKER_TIMEOUT_MS: "0" }, /reliable\.checkerTimeoutMs/);
    refusedNaming({ MSGX_RELIABLE_RESEND_WAITS_MS: "1000,abc" }, /reliable\.resendWaitsMs/);
    refusedNaming({ MSGX_RELIABLE_REJECT_WAITS_MS: "0" }, /reliable\.rejectWaitsMs/);
    refusedNaming({ MSGX_RELIABLE_AFTER_MAX_CHECKS: "forever" }, /reliable\.afterMaxChecks/);
    refusedNaming({ MSGX_RELIABLE_TOKEN: "short" }, /reliable\.token.*16/);
    refusedNaming({ MSGX_RELIABLE_ENABLED: "maybe" }, /reliable\.enabled/);
    refusedNaming({ MSGX_RELIABLE_RETENTION_FINISHED_MS: "0" }, /reliable\.retention\.finishedMs/);
    refusedNaming({ MSGX_RELIABLE_QUEUES: "{orders" }, /reliable\.queues.*JSON/);
    refusedNaming({ MSGX_RELIABLE_QUEUES: '{"bad/name":{}}' }, /reliable\.queues\.bad\/name.*queue name/);
    refusedNaming({ MSGX_RELIABLE_QUEUES: '{"orders":{"checkerUrl":"ftp://orders/check"}}' }, /reliable\.queues\.orders\.checkerUrl/);
    refusedNaming({ MSGX_RELIABLE_QUEUES: '{"orders":{"checkAfterMs":-5}}' }, /reliable\.queues\.orders\.checkAfterMs/);
    refusedNaming({ MSGX_RELIABLE_QUEUES: '{"orders":{"checkerURL":"http://x"}}' }, /reliable\.queues\.orders/);
  });

  it("names a queue's topics by reliable.topicPrefix and reliable.dlqTopicPrefix (default rmq. and rmq-dlq.); neither may start the other", () => {
    expect(loadConfig({ env: {} }).reliable).toMatchObject({ topicPrefix: "rmq.", dlqTopicPrefix: "rmq-dlq." });
    expect(loadConfig({ env: { MSGX_RELIABLE_TOPIC_PREFIX: "acme.rm.", MSGX_RELIABLE_DLQ_TOPIC_PREFIX: "acme.dlq." } }).reliable).toMatchObject({ topicPrefix: "acme.rm.", dlqTopicPrefix: "acme.dlq." });
    refusedNaming({ MSGX_RELIABLE_TOPIC_PREFIX: "a b." }, /topicPrefix/);
    refusedNaming({ MSGX_RELIABLE_TOPIC_PREFIX: "x".repeat(101) }, /topicPrefix/);
    // A queue named "dlq.a" would otherwise share a topic with queue "a"'s dead letters.
    refusedNaming({ MSGX_RELIABLE_TOPIC_PREFIX: "acme.", MSGX_RELIABLE_DLQ_TOPIC_PREFIX: "acme.dlq." }, /dlqTopicPrefix/);
    refusedNaming({ MSGX_RELIABLE_TOPIC_PREFIX: "same.", MSGX_RELIABLE_DLQ_TOPIC_PREFIX: "same." }, /dlqTopicPrefix/);
  });

  it("never echoes a refused checker URL (it may carry credentials)", () => {
    const secret = "http//user:s3cret@checker";
    expect(() => loadConfig({ env: { MSGX_RELIABLE_DEFAULT_CHECKER_URL: secret } })).toThrow(/reliable\.defaultCheckerUrl/);
    try {
      loadConfig({ env: { MSGX_RELIABLE_DEFAULT_CHECKER_URL: secret } });
    } catch (e) {
      expect(String((e as Error).message)).not.toContain("s3cret");
    }
  });
});

describe("serviceOptions", () => {
  it("passes only what is set to the service, and each queue's checkAfterMs as its default check delay", () => {
    const r = loadConfig({ env: { MSGX_RELIABLE_MAX_SENDS: "3", MSGX_RELIABLE_QUEUES: '{"a":{"checkAfterMs":0},"b":{"checkerUrl":"http://b/"}}' } }).reliable;
    expect(serviceOptions(r)).toEqual({ maxSends: 3, queueCheckAfterMs: { a: 0 } });
    expect(serviceOptions(loadConfig({ env: {} }).reliable)).toEqual({});
  });

  it("lists the queues with orderByKey as the service's orderedQueues; a non-boolean is refused", () => {
    const r = loadConfig({ env: { MSGX_RELIABLE_QUEUES: '{"a":{"orderByKey":true},"b":{"orderByKey":false},"c":{}}' } }).reliable;
    expect(serviceOptions(r)).toEqual({ orderedQueues: ["a"] });
    expect(() => loadConfig({ env: { MSGX_RELIABLE_QUEUES: '{"a":{"orderByKey":"yes"}}' } })).toThrow(/orderByKey/);
  });
});
