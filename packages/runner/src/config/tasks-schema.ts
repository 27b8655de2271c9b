import { assertTaskNoTimeZone, assertTaskRouting, isRoutingCode, type TaskRouting } from "@msgx/tasks";
import { isMsgxError } from "@msgx/core";
import { z } from "zod";
import { httpUrl } from "./reliable-schema.js";

const positive = (d: number) => z.coerce.number().int().min(1).default(d);
const bool = (d: boolean) =>
  z
    .union([z.boolean(), z.enum(["true", "false", "1", "0"])])
    .default(d)
    .transform((v) => v === true || v === "true" || v === "1");

/** Owner services: a JSON array in the file, or comma-separated text in `MSGX_TASKS_OWNERS` (`LMS,WMS`). */
const owners = z
  .union([z.array(z.unknown()), z.string().transform((text) => text.split(",").map((t) => t.trim()).filter((t) => t !== ""))])
  .pipe(z.array(z.string().refine(isRoutingCode, "an owner must match [A-Za-z0-9][A-Za-z0-9._-]{0,63}")))
  .default([]);

/** One kind of task's timeouts; an absent one is not watched. */
const taskTimeouts = z
  .object({
    /** From dispatch to a FINISHED / CANCELLED report (Temporal's start-to-close timeout). */
    deadlineMs: z.coerce.number().int().min(1).optional(),
    /** From the dispatch or the last EXECUTING report to the next one (Temporal's heartbeat timeout). */
    heartbeatMs: z.coerce.number().int().min(1).optional(),
  })
  .strict();

/** Timeouts by key: a JSON object in the file, or its JSON text in an environment variable. */
const timeoutsBy = (key: z.ZodType<string>) => {
  const map = z.record(key, taskTimeouts);
  const fromText = z.string().transform((text, ctx): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      ctx.addIssue({ code: "custom", message: 'must be a JSON object such as {"LMS_MOVE":{"deadlineMs":600000}}' });
      return z.NEVER;
    }
  });
  return z.union([map, fromText.pipe(map)]).default({});
};

/**
 * `tasks.overdue`: each timeout from the task's `byHandlerCode` entry, else its `byBizType` entry,
 * else `default`; fixed on the task when it is created.
 */
const taskOverdueSection = z
  .object({
    default: taskTimeouts.prefault({}),
    byHandlerCode: timeoutsBy(z.string().refine(isRoutingCode, "a handler code must match [A-Za-z0-9][A-Za-z0-9._-]{0,63}")),
    byBizType: timeoutsBy(z.string().min(1)),
  })
  .strict()
  .prefault({});

/**
 * `tasks.*`: the task service the runner hosts (docs/task-routing.md "Hosted by the msgx runner"):
 * its HTTP API `/task/v1`, the relay of task events, dispatch to the executing system, the
 * callback watchdog and retention. Off by default: the task service is opt-in.
 */
export const tasksSection = z
  .object({
    /** Serve `/task/v1` and run the task relay, dispatch, watchdog and retention. */
    enabled: bool(false),
    /** Bearer token of `/task/v1` (owners and the executing system); unset = `http.token`. */
    token: z.string().min(16, "tasks.token must be at least 16 characters").optional(),
    routing: z
      .object({
        /** `one-topic`: every owner's events on `topic`, the owner in the `msgx-owner` header. `topic-per-owner`: `topicPattern` per owner. */
        mode: z.enum(["one-topic", "topic-per-owner"]).default("one-topic"),
        topic: z.string().default("TASK_EVENT_TOPIC"),
        topicPattern: z.string().default("{owner}_TASK_EVENT_TOPIC"),
      })
      .strict()
      .prefault({}),
    /** The owner services a task may be created for; required in topic-per-owner mode, enforced whenever given. */
    owners,
    /** Create the task topics before the relay first sends to them (JSONL delivery has none). */
    createTopics: bool(true),
    dispatcher: z
      .object({
        /** The executing system's task API (`POST <url>/tasks`); unset = tasks are dispatched by `POST /task/v1/tasks/:id/dispatched`. */
        url: httpUrl("tasks.dispatcher.url").optional(),
        /** Sent as `Authorization: Bearer <token>` to the executing system. */
        token: z.string().min(1).optional(),
        /** A call not answered by then is an outage (no attempt spent). */
        timeoutMs: positive(5_000),
      })
      .strict()
      .prefault({}),
    dispatchRetry: z
      .object({
        /** Wait after the first failed dispatch attempt; it doubles after each. */
        initialMs: positive(1_000),
        /** Cap of that doubling wait (attempts never run out). */
        maxMs: positive(60_000),
      })
      .strict()
      .refine((r) => r.maxMs >= r.initialMs, { message: "tasks.dispatchRetry.maxMs must not be below initialMs" })
      .prefault({}),
    watchdog: z
      .object({
        /** A task pending its owner's callback longer than this alerts (log + metric) and has its event redelivered. */
        pendingCallbackAlertMs: positive(10 * 60_000),
        /** At most one alert and redelivery per task this often. */
        pendingCallbackRetryMs: positive(10 * 60_000),
      })
      .strict()
      .prefault({}),
    /** Deadlines and heartbeats (docs/task-routing.md "Deadlines and heartbeats"); nothing set = no task is watched. */
    overdue: taskOverdueSection,
    callback: z
      .object({
        /**
         * The result topic owners may report on instead of HTTP (`TaskCallbackMessage` records,
         * docs/task-routing.md §5); unset = callbacks over HTTP only. Needs `kafka.brokers`.
         */
        resultTopic: z.string().min(1).optional(),
        /** The runner's consumer group on the result topic (its own: no owner may share it). */
        groupId: z.string().min(1).default("msgx-task-callbacks"),
      })
      .strict()
      .prefault({}),
    /** Period of the dispatch and watchdog steps. */
    jobIntervalMs: positive(1_000),
    taskNo: z
      .object({
        /**
         * The IANA time zone whose day a task number carries (`T<yyyyMMdd><seq>`). Default: this
         * machine's (`TZ`, else the system's), which at an airport is its local day.
         */
        timeZone: z
          .string()
          .default(() => Intl.DateTimeFormat().resolvedOptions().timeZone)
          .refine(
            (zone) => {
              try {
                assertTaskNoTimeZone(zone);
                return true;
              } catch {
                return false;
              }
            },
            { message: "not a time zone: give an IANA name such as Asia/Shanghai, or UTC" },
          ),
      })
      .strict()
      .prefault({}),
    retention: z
      .object({
        /** FINISHED, CANCELLED and FAILED tasks are purged (with their feedback and callback logs) this long after their last change. */
        finishedMs: positive(7 * 24 * 3_600_000),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.routing.mode === "topic-per-owner" && t.owners.length === 0) {
      ctx.addIssue({ code: "custom", path: ["owners"], message: "topic-per-owner routing needs the owners (tasks.owners): the relay has a target per owner" });
    }
    try {
      assertTaskRouting(taskRouting(t));
    } catch (e) {
      if (!isMsgxError(e)) throw e;
      ctx.addIssue({ code: "custom", path: ["routing"], message: e.message });
    }
  })
  .prefault({});

export type TasksConfig = z.output<typeof tasksSection>;

/** Core's routing from the section: `one-topic` is core's `owner-header` mode; the owners, when given, are the ones a task may have. */
export function taskRouting(t: { readonly routing: TasksConfig["routing"]; readonly owners: readonly string[] }): TaskRouting {
  const owners = t.owners.length > 0 ? { owners: t.owners } : {};
  return t.routing.mode === "one-topic" ? { mode: "owner-header", topic: t.routing.topic, ...owners } : { mode: "topic-per-owner", topicPattern: t.routing.topicPattern, ...owners };
}
