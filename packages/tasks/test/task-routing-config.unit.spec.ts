import { describe, expect, it } from "vitest";
import { EventHeader } from "@msgx/core";
import { isMsgxError } from "@msgx/core";
import { routeTaskRecord, type ConsumedTaskRecord } from "../src/task-consume-decision.js";
import { TaskHandlerRegistry, type TaskEventHandler } from "../src/task-handler-registry.js";
import { parseTaskEvent, taskEventMessage, type TaskEventMessage } from "../src/task-event.js";
import { TaskEventHeader } from "../src/task-headers.js";
import { newTaskRecord } from "../src/task-record.js";
import {
  assertTaskRouting,
  DEFAULT_TASK_ROUTING,
  taskDeliveryTopics,
  taskTarget,
  taskTargets,
  taskTopic,
  taskEventDraft,
  taskTopics,
  TASK_TARGET,
  type TaskRouting,
} from "../src/task-routing-config.js";
import { DeliveryWorld } from "../../core/test/delivery/delivery-world.js";

const PER_OWNER: TaskRouting = { mode: "topic-per-owner", topicPattern: "{owner}_TASK_EVENT_TOPIC" };
const T0 = Date.UTC(2026, 6, 13);
const message = (owner = "LMS", extra: Partial<TaskEventMessage> = {}): TaskEventMessage => ({
  ...taskEventMessage(
    { ...newTaskRecord({ taskId: "T1", ownerService: owner, handlerCode: "LMS_STOCK_AREA_CALL_TUBE", bizType: "B", bizId: "B1", externalSystem: "ACS" }, T0, "T202607130001"), version: 2, statusReason: null },
    "TASK_FINISHED",
    "ACS-E1",
    T0,
  ),
  ...extra,
});
const record = (value: string | null, headers: Record<string, string> = {}, topic = "TASK_EVENT_TOPIC"): ConsumedTaskRecord => ({ topic, partition: 0, offset: "7", key: "T1", value, headers });

describe("owner routing", () => {
  it("owner-header: one target and one topic for every owner", () => {
    expect(taskTarget(DEFAULT_TASK_ROUTING, "LMS")).toBe("KAFKA:task");
    expect(taskTopic(DEFAULT_TASK_ROUTING, "WMS")).toBe("TASK_EVENT_TOPIC");
    expect(taskTargets(DEFAULT_TASK_ROUTING, ["LMS", "WMS"])).toEqual(["KAFKA:task"]);
    expect(taskDeliveryTopics(DEFAULT_TASK_ROUTING, ["LMS", "WMS"])).toEqual({ "KAFKA:task": "TASK_EVENT_TOPIC" });
  });

  it("topic-per-owner: a target and a topic per owner", () => {
    expect(taskTarget(PER_OWNER, "LMS")).toBe("KAFKA:task:LMS");
    expect(taskTopic(PER_OWNER, "WMS")).toBe("WMS_TASK_EVENT_TOPIC");
    expect(taskTargets(PER_OWNER, ["LMS", "WMS", "LMS"])).toEqual(["KAFKA:task:LMS", "KAFKA:task:WMS"]);
    expect(taskDeliveryTopics(PER_OWNER, ["LMS", "WMS"])).toEqual({ "KAFKA:task:LMS": "LMS_TASK_EVENT_TOPIC", "KAFKA:task:WMS": "WMS_TASK_EVENT_TOPIC" });
    expect(taskTopics(PER_OWNER, ["LMS", "WMS"])).toEqual(["LMS_TASK_EVENT_TOPIC", "WMS_TASK_EVENT_TOPIC"]);
  });

  it("refuses bad configuration and owners as CONFIG", () => {
    const kind = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return isMsgxError(e) ? e.kind : String(e);
      }
      return "no error";
    };
    expect(kind(() => assertTaskRouting({ mode: "owner-header", topic: "has space" }))).toBe("CONFIG");
    expect(kind(() => assertTaskRouting({ mode: "topic-per-owner", topicPattern: "TASKS" }))).toBe("CONFIG");
    expect(kind(() => taskTopic(DEFAULT_TASK_ROUTING, "L M S"))).toBe("CONFIG");
  });

  it("a task event draft carries owner, event type and handler code, and its delivered record has them", async () => {
    const task = { ...newTaskRecord({ taskId: "T1", ownerService: "LMS", handlerCode: "LMS_STOCK_AREA_CALL_TUBE", bizType: "B", bizId: "B1", externalSystem: "ACS" }, T0, "T202607130001"), version: 2, statusReason: null };
    const draft = taskEventDraft(task, "TASK_FINISHED", "ACS-E1", DEFAULT_TASK_ROUTING, T0);
    const task3 = { [TaskEventHeader.OWNER]: "LMS", [TaskEventHeader.TASK_EVENT]: "TASK_FINISHED", [TaskEventHeader.HANDLER_CODE]: "LMS_STOCK_AREA_CALL_TUBE" };
    expect(draft.headers).toEqual(task3);
    const w = new DeliveryWorld({ target: TASK_TARGET, topics: taskDeliveryTopics(DEFAULT_TASK_ROUTING, ["LMS"]) });
    const [row] = await w.outbox.append([draft]);
    expect(await w.dispatcher.step()).toMatchObject({ did: "sent", eventIds: [row!.eventId] });
    const [delivered] = w.broker.records("TASK_EVENT_TOPIC");
    expect(delivered!.headers).toEqual({ ...task3, [EventHeader.EVENT_ID]: String(row!.eventId), "msgx-event-type": "UPSERT", "msgx-state-version": "2", "msgx-source-msg-id": "0" });
  });
});

describe("parseTaskEvent", () => {
  it("accepts a message the task service wrote", () => {
    expect(parseTaskEvent(JSON.stringify(message()))).toEqual({ ok: true, event: message() });
  });

  it("says why a value is not a task event", () => {
    const reason = (v: string | null) => {
      const p = parseTaskEvent(v);
      return p.ok ? "ok" : p.reason;
    };
    expect(reason(null)).toBe("record has no value");
    expect(reason("{")).toBe("record value is not JSON");
    expect(reason("[1]")).toBe("record value is not a JSON object");
    expect(reason(JSON.stringify({ ...message(), schemaVersion: 2 }))).toBe("unsupported schemaVersion 2");
    expect(reason(JSON.stringify({ ...message(), eventType: "TASK_PAUSED" }))).toBe('unknown eventType "TASK_PAUSED"');
    expect(reason(JSON.stringify({ ...message(), eventType: "task_finished" }))).toBe('unknown eventType "task_finished"');
    expect(reason(JSON.stringify({ ...message(), eventType: "TASK_EXECUTING" }))).toBe("ok");
    expect(reason(JSON.stringify({ ...message(), taskId: "" }))).toBe("missing or empty: taskId");
    expect(reason(JSON.stringify({ ...message(), handlerCode: "a b" }))).toBe("handlerCode is not a valid code");
    expect(reason(JSON.stringify({ ...message(), payload: [] }))).toBe("payload is not a JSON object");
  });
});

describe("routeTaskRecord", () => {
  const lms = JSON.stringify(message("LMS"));
  const wms = JSON.stringify(message("WMS"));

  it("skips another owner's record by its header without parsing the value", () => {
    expect(routeTaskRecord(record("not even json", { [TaskEventHeader.OWNER]: "WMS" }), "LMS", DEFAULT_TASK_ROUTING)).toEqual({ action: "skip", reason: "owner WMS" });
  });

  it("handles its own; reads the owner from the value when the header is missing", () => {
    expect(routeTaskRecord(record(lms, { [TaskEventHeader.OWNER]: "LMS" }), "LMS", DEFAULT_TASK_ROUTING)).toEqual({ action: "handle", event: message("LMS") });
    expect(routeTaskRecord(record(lms), "LMS", DEFAULT_TASK_ROUTING).action).toBe("handle");
    expect(routeTaskRecord(record(wms), "LMS", DEFAULT_TASK_ROUTING)).toEqual({ action: "skip", reason: "owner WMS" });
  });

  it("dead-letters an unreadable record and a header that disagrees with the value", () => {
    expect(routeTaskRecord(record("{oops", { [TaskEventHeader.OWNER]: "LMS", [EventHeader.EVENT_ID]: "12" }), "LMS", DEFAULT_TASK_ROUTING)).toEqual({
      action: "dead",
      eventId: "unreadable:TASK_EVENT_TOPIC:event-12",
      reason: "unreadable task event: record value is not JSON",
    });
    expect(routeTaskRecord(record(null), "LMS", DEFAULT_TASK_ROUTING)).toMatchObject({ action: "dead", eventId: "unreadable:TASK_EVENT_TOPIC:0:7" });
    expect(routeTaskRecord(record(wms, { [TaskEventHeader.OWNER]: "LMS" }), "LMS", DEFAULT_TASK_ROUTING)).toMatchObject({ action: "dead", eventId: "T1#2" });
  });

  it("topic-per-owner: only its own topic", () => {
    expect(routeTaskRecord(record(lms, {}, "WMS_TASK_EVENT_TOPIC"), "LMS", PER_OWNER).action).toBe("skip");
    expect(routeTaskRecord(record(lms, {}, "LMS_TASK_EVENT_TOPIC"), "LMS", PER_OWNER).action).toBe("handle");
  });
});

describe("TaskHandlerRegistry", () => {
  const h = (handlerCode: string): TaskEventHandler<unknown> => ({ handlerCode, onTaskFinished: async () => undefined, onTaskCancelled: async () => undefined });
  const refusal = (handlers: TaskEventHandler<unknown>[]) => {
    try {
      new TaskHandlerRegistry(handlers);
    } catch (e) {
      return isMsgxError(e) ? `${e.kind}: ${e.message}` : String(e);
    }
    return "started";
  };

  it("refuses to start on a duplicate code, naming it and both handlers", () => {
    expect(refusal([h("LMS_A"), h("LMS_B"), h("LMS_A")])).toBe("CONFIG: duplicate task handler code LMS_A: handlers #0 and #2 both claim it");
  });

  it("refuses a malformed code and an empty registry", () => {
    expect(refusal([h("LMS A")])).toMatch(/^CONFIG: task handler #0: invalid handlerCode/);
    expect(refusal([])).toBe("CONFIG: no task handlers registered");
  });

  it("finds handlers by code and explains an unknown one", () => {
    const r = new TaskHandlerRegistry([h("LMS_STOCK_AREA_CALL_TUBE"), h("LMS_SLITTER_DOWN_AGV")]);
    expect(r.get("LMS_SLITTER_DOWN_AGV")?.handlerCode).toBe("LMS_SLITTER_DOWN_AGV");
    expect(r.get("LMS_OTHER")).toBeUndefined();
    expect(r.codes).toEqual(["LMS_STOCK_AREA_CALL_TUBE", "LMS_SLITTER_DOWN_AGV"]);
    expect(r.unknownReason("LMS_OTHER")).toBe('unknown handler code "LMS_OTHER": no task handler is registered for it (registered: LMS_STOCK_AREA_CALL_TUBE, LMS_SLITTER_DOWN_AGV)');
  });
});
