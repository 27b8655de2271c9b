/**
 * The `tasks` section of the runner configuration (issue 21): defaults (off, one topic, no
 * dispatcher), the file and `MSGX_TASKS_*` forms, the routing handed to core, and every bad value
 * refused at load as a CONFIG error naming its key.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config/load-config.js";
import { taskRouting } from "../src/config/tasks-schema.js";

const refusedNaming = (env: Record<string, string>, key: RegExp) =>
  expect(() => loadConfig({ env }), JSON.stringify(env)).toThrow(expect.objectContaining({ kind: "CONFIG", message: expect.stringMatching(key) }));

describe("tasks configuration", () => {
  it("callback result topic: off by default, from MSGX_TASKS_CALLBACK_*, refused without Kafka", () => {
    expect(loadConfig({ env: {} }).tasks.callback).toEqual({ groupId: "msgx-task-callbacks" });
    const env = { MSGX_TASKS_CALLBACK_RESULT_TOPIC: "RESULTS", MSGX_TASKS_CALLBACK_GROUP_ID: "g1", MSGX_KAFKA_BROKERS: "k:9092" };
    expect(loadConfig({ env }).tasks.callback).toEqual({ resultTopic: "RESULTS", groupId: "g1" });
    refusedNaming({ MSGX_TASKS_CALLBACK_RESULT_TOPIC: "RESULTS" }, /tasks\.callback\.resultTopic.*needs Kafka/);
  });

  it("has defaults: off, one topic, no owners, no dispatcher, 1 s jobs, 10 min watchdog, 7 days retention", () => {
    const t = loadConfig({ env: {} }).tasks;
    expect(t).toMatchObject({
      enabled: false,
      routing: { mode: "one-topic", topic: "TASK_EVENT_TOPIC", topicPattern: "{owner}_TASK_EVENT_TOPIC" },
      owners: [],
      createTopics: true,
      dispatcher: { timeoutMs: 5_000 },
      dispatchRetry: { initialMs: 1_000, maxMs: 60_000 },
      watchdog: { pendingCallbackAlertMs: 600_000, pendingCallbackRetryMs: 600_000 },
      jobIntervalMs: 1_000,
      retention: { finishedMs: 604_800_000 },
    });
    expect(t.token).toBeUndefined();
    expect(t.dispatcher.url).toBeUndefined();
    expect(t.taskNo.timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(taskRouting(t)).toEqual({ mode: "owner-header", topic: "TASK_EVENT_TOPIC" });
  });

  it("reads MSGX_TASKS_* variables: owners comma-separated", () => {
    const t = loadConfig({
      env: {
        MSGX_TASKS_ENABLED: "true",
        MSGX_TASKS_TOKEN: "task-token-0123456789",
        MSGX_TASKS_ROUTING_MODE: "topic-per-owner",
        MSGX_TASKS_ROUTING_TOPIC_PATTERN: "tasks.{owner}",
        MSGX_TASKS_OWNERS: "LMS, WMS",
        MSGX_TASKS_DISPATCHER_URL: "http://acs:9000/api",
        MSGX_TASKS_DISPATCHER_TOKEN: "acs",
        MSGX_TASKS_DISPATCHER_TIMEOUT_MS: "2000",
        MSGX_TASKS_DISPATCH_RETRY_INITIAL_MS: "10",
        MSGX_TASKS_DISPATCH_RETRY_MAX_MS: "100",
        MSGX_TASKS_WATCHDOG_PENDING_CALLBACK_ALERT_MS: "60000",
        MSGX_TASKS_JOB_INTERVAL_MS: "250",
        MSGX_TASKS_RETENTION_FINISHED_MS: "3600000",
        MSGX_TASKS_TASK_NO_TIME_ZONE: "Asia/Shanghai",
      },
    }).tasks;
    expect(t).toMatchObject({
      enabled: true,
      token: "task-token-0123456789",
      owners: ["LMS", "WMS"],
      dispatcher: { url: "http://acs:9000/api", token: "acs", timeoutMs: 2_000 },
      dispatchRetry: { initialMs: 10, maxMs: 100 },
      watchdog: { pendingCallbackAlertMs: 60_000, pendingCallbackRetryMs: 600_000 },
      jobIntervalMs: 250,
      retention: { finishedMs: 3_600_000 },
      taskNo: { timeZone: "Asia/Shanghai" },
    });
    expect(taskRouting(t)).toEqual({ mode: "topic-per-owner", topicPattern: "tasks.{owner}", owners: ["LMS", "WMS"] });
  });

  it("reads the same from a config file: owners as a JSON array", () => {
    const file = join(mkdtempSync(join(tmpdir(), "msgx-tasks-config-")), "msgx.json");
    writeFileSync(file, JSON.stringify({ tasks: { enabled: true, owners: ["LMS"], routing: { topic: "tasks" } } }));
    const t = loadConfig({ file, env: {} }).tasks;
    expect(t.owners).toEqual(["LMS"]);
    expect(taskRouting(t)).toEqual({ mode: "owner-header", topic: "tasks", owners: ["LMS"] });
  });

  it("refuses bad values naming the key", () => {
    refusedNaming({ MSGX_TASKS_TOKEN: "short" }, /tasks\.token/);
    refusedNaming({ MSGX_TASKS_ROUTING_MODE: "per-type" }, /tasks\.routing\.mode/);
    refusedNaming({ MSGX_TASKS_ROUTING_MODE: "topic-per-owner" }, /tasks\.owners: topic-per-owner routing needs the owners/);
    refusedNaming({ MSGX_TASKS_ROUTING_MODE: "topic-per-owner", MSGX_TASKS_OWNERS: "LMS", MSGX_TASKS_ROUTING_TOPIC_PATTERN: "tasks" }, /tasks\.routing: topicPattern must contain \{owner\}/);
    refusedNaming({ MSGX_TASKS_ROUTING_TOPIC: "no spaces" }, /tasks\.routing: task topic is not a valid topic name/);
    refusedNaming({ MSGX_TASKS_OWNERS: "LMS,bad owner" }, /tasks\.owners\.1/);
    refusedNaming({ MSGX_TASKS_TASK_NO_TIME_ZONE: "Mars/Olympus" }, /tasks\.taskNo\.timeZone: not a time zone/);
    refusedNaming({ MSGX_TASKS_DISPATCHER_URL: "ftp://acs/tasks" }, /tasks\.dispatcher\.url: tasks\.dispatcher\.url must be an http\(s\) URL/);
    refusedNaming({ MSGX_TASKS_DISPATCHER_TIMEOUT_MS: "0" }, /tasks\.dispatcher\.timeoutMs/);
    refusedNaming({ MSGX_TASKS_DISPATCH_RETRY_INITIAL_MS: "5000", MSGX_TASKS_DISPATCH_RETRY_MAX_MS: "1000" }, /tasks\.dispatchRetry: .*maxMs must not be below initialMs/);
    refusedNaming({ MSGX_TASKS_JOB_INTERVAL_MS: "-1" }, /tasks\.jobIntervalMs/);
    refusedNaming({ MSGX_TASKS_ENABLED: "yes" }, /tasks\.enabled/);
  });

  it("tasks.overdue: nothing watched by default; timeouts by handler code and business type from JSON text or the file; bad ones refused naming the key", () => {
    expect(loadConfig({ env: {} }).tasks.overdue).toEqual({ default: {}, byHandlerCode: {}, byBizType: {} });
    const fromEnv = loadConfig({
      env: {
        MSGX_TASKS_OVERDUE_DEFAULT_HEARTBEAT_MS: "60000",
        MSGX_TASKS_OVERDUE_BY_HANDLER_CODE: '{"LMS_MOVE":{"deadlineMs":600000}}',
        MSGX_TASKS_OVERDUE_BY_BIZ_TYPE: '{"搬运":{"heartbeatMs":30000}}',
      },
    }).tasks.overdue;
    expect(fromEnv).toEqual({ default: { heartbeatMs: 60_000 }, byHandlerCode: { LMS_MOVE: { deadlineMs: 600_000 } }, byBizType: { 搬运: { heartbeatMs: 30_000 } } });
    const file = join(mkdtempSync(join(tmpdir(), "msgx-tasks-overdue-")), "msgx.json");
    writeFileSync(file, JSON.stringify({ tasks: { overdue: { byHandlerCode: { FAST: { heartbeatMs: 5_000 } } } } }));
    expect(loadConfig({ file, env: {} }).tasks.overdue.byHandlerCode).toEqual({ FAST: { heartbeatMs: 5_000 } });
    refusedNaming({ MSGX_TASKS_OVERDUE_DEFAULT_DEADLINE_MS: "0" }, /tasks\.overdue\.default\.deadlineMs/);
    refusedNaming({ MSGX_TASKS_OVERDUE_BY_HANDLER_CODE: "{not json" }, /tasks\.overdue\.byHandlerCode/);
    refusedNaming({ MSGX_TASKS_OVERDUE_BY_HANDLER_CODE: '{"bad code":{"deadlineMs":1}}' }, /tasks\.overdue\.byHandlerCode/);
    refusedNaming({ MSGX_TASKS_OVERDUE_BY_BIZ_TYPE: '{"B":{"deadlineMs":1,"timeoutMs":2}}' }, /tasks\.overdue\.byBizType/);
  });

  it("never echoes a dispatcher URL it refuses (it may carry credentials)", () => {
    expect(() => loadConfig({ env: { MSGX_TASKS_DISPATCHER_URL: "ftp://user:secret@acs/tasks" } })).toThrow(expect.objectContaining({ message: expect.not.stringContaining("secret") }));
  });
});
