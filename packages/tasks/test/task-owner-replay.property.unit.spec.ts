/**
 * The owner side under replays and redeliveries (issue 21), over the fakes: random interleavings of
 * a task's records — the original, plain duplicates, the watchdog's `msgx-redeliver`, operators'
 * `msgx-replay` records (some of them redelivered) — and of progress events, with handler failures
 * that use up the budget, a task service that is down or loses answers, and time passing. Then the
 * handler heals, every dead letter is replayed once more, and everything settles: each final event
 * had its effect applied exactly once, the last report the task service recorded for it is SUCCESS,
 * and no progress event was ever reported. Throughout: an effect is never applied twice, and a
 * SUCCEEDED row never changes status.
 */
import { fc, it } from "@fast-check/vitest";
import { describe, expect } from "vitest";
import { EventHeader } from "@msgx/core";
import { ManualClock } from "@msgx/core/fakes";
import { MsgxError } from "@msgx/core";
import { InMemoryTaskConsumeLogStore, type InMemoryTaskTxHandle } from "../src/in-memory-task-consume-log-store.js";
import { TaskCallbackSender } from "../src/task-callback-sender.js";
import type { TaskCallback } from "../src/task-callback.js";
import type { ConsumedTaskRecord } from "../src/task-consume-decision.js";
import { taskEventMessage, type TaskEventMessage } from "../src/task-event.js";
import { TaskEventConsumer } from "../src/task-event-consumer.js";
import { TaskHandlerRegistry } from "../src/task-handler-registry.js";
import { TaskEventHeader } from "../src/task-headers.js";
import { newTaskRecord } from "../src/task-record.js";

const TASKS = 3;
const POLICY = { maxAttempts: 3, initialBackoffMs: 1_000, backoffMultiplier: 2, maxBackoffMs: 60_000, headDeadlineMs: 600_000 };

type Cmd =
  | { readonly t: "deliver"; readonly task: number; readonly kind: "original" | "redeliver" | "replay" | "replayAgain" | "progress" }
  | { readonly t: "fail"; readonly task: number; readonly n: number }
  | { readonly t: "send" }
  | { readonly t: "serviceDown"; readonly on: boolean }
  | { readonly t: "loseAnswer" }
  | { readonly t: "forget" }
  | { readonly t: "advance"; readonly ms: number };

const cmdArb: fc.Arbitrary<Cmd> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant("deliver" as const),
      task: fc.integer({ min: 0, max: TASKS - 1 }),
      kind: fc.constantFrom("original" as const, "redeliver" as const, "replay" as const, "replayAgain" as const, "progress" as const),
    }),
  },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("fail" as const), task: fc.integer({ min: 0, max: TASKS - 1 }), n: fc.integer({ min: 1, max: 7 }) }) },
  { weight: 4, arbitrary: fc.constant({ t: "send" as const }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("serviceDown" as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ t: "loseAnswer" as const }) },
  { weight: 1, arbitrary: fc.constant({ t: "forget" as const }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 8_000 }) }) },
);

const finalEvent = (i: number, cancelled: boolean): TaskEventMessage =>
  taskEventMessage(
    { ...newTaskRecord({ taskId: `T${i}`, ownerService: "LMS", handlerCode: "LMS_H", bizType: "B", bizId: `B${i}`, externalSystem: "ACS" }, 0, "T202607130001"), version: 9 },
    cancelled ? "TASK_CANCELLED" : "TASK_FINISHED",
    "ACS-final",
    0,
  );
// Progress ids are apart from the final event's (`T<i>#9`): a run with eight progress events once
// named one `T0#9`, and the final event was then a duplicate of it and never reported.
const progressEvent = (i: number, n: number): TaskEventMessage => ({ ...finalEvent(i, false), eventType: "TASK_EXECUTING", eventId: `T${i}#progress-${n}`, taskVersion: n });

const covered = { runs: 0, replaysReopened: 0, reportsReopened: 0, deadBeforeSettle: 0, lostAnswers: 0, forgotten: 0, watchdogRedeliveries: 0 };

describe("task owner side under replays and redeliveries (property)", () => {
  it.prop([fc.array(fc.boolean(), { minLength: TASKS, maxLength: TASKS }), fc.array(cmdArb, { minLength: 5, maxLength: 80 })], { numRuns: 300 })(
    "every final event is applied exactly once and ends reported SUCCESS; progress is never reported",
    async (cancelled, cmds) => {
      covered.runs += 1;
      const clock = new ManualClock();
      const log = new InMemoryTaskConsumeLogStore();
      const effects = new Map<string, number>();
      const failuresLeft = new Map<string, number>();
      const consumer = new TaskEventConsumer<InMemoryTaskTxHandle>({
        owner: "LMS",
        registry: new TaskHandlerRegistry<InMemoryTaskTxHandle>([
          {
            handlerCode: "LMS_H",
            onTaskFinished: async (e, ctx) => apply(e, ctx.tx),
            onTaskCancelled: async (e, ctx) => apply(e, ctx.tx),
            onTaskExecuting: async (e, ctx) => ctx.tx.stage(() => effects.set(e.eventId, (effects.get(e.eventId) ?? 0) + 1)),
          },
        ]),
        log,
        clock,
        policy: POLICY,
      });
      function apply(e: TaskEventMessage, tx: InMemoryTaskTxHandle): void {
        const left = failuresLeft.get(e.taskId) ?? 0;
        if (left > 0) {
          failuresLeft.set(e.taskId, left - 1);
          throw new Error(`simulated failure of ${e.taskId}`);
        }
        tx.stage(() => effects.set(e.eventId, (effects.get(e.eventId) ?? 0) + 1));
      }
      // The task service's side of the reports: every one it recorded, in order.
      const recorded: TaskCallback[] = [];
      let down = false;
      let loseAnswers = 0;
      const sender = new TaskCallbackSender<InMemoryTaskTxHandle>({
        log,
        clock,
        port: {
          report: async (cb) => {
            if (down) throw new MsgxError("DEPENDENCY_UNAVAILABLE", "connect ECONNREFUSED");
            recorded.push(cb);
            if (loseAnswers > 0) {
              loseAnswers -= 1;
              covered.lostAnswers += 1;
              throw new MsgxError("DEPENDENCY_UNAVAILABLE", "socket hang up after the request was sent");
            }
          },
        },
      });

      let delivery = 0;
      let replays = 0;
      const lastReplay = new Map<number, ConsumedTaskRecord>();
      const record = (e: TaskEventMessage, extra: Record<string, string> = {}): ConsumedTaskRecord => ({
        topic: "TASK_EVENT_TOPIC",
        partition: 0,
        offset: String(delivery),
        key: e.taskId,
        value: JSON.stringify(e),
        headers: { [TaskEventHeader.OWNER]: "LMS", [EventHeader.EVENT_ID]: String(++delivery), ...extra },
      });
      const succeeded = new Set<string>();
      const handle = async (r: ConsumedTaskRecord): Promise<void> => {
        const eventId = (JSON.parse(r.value!) as TaskEventMessage).eventId;
        const before = await log.get(eventId);
        // Like the Kafka wiring: the partition is held and the record handled again when due.
        let step = await consumer.handle(r);
        for (let n = 0; step.did === "retry" && n < 10; n++) {
          clock.set(Math.max(clock.now(), step.at));
          step = await consumer.handle(r);
        }
        if (before?.status === "DEAD" && step.did !== "duplicate" && step.did !== "skipped") covered.replaysReopened += 1;
        if (step.did === "duplicate" && step.callbackReopened === true) covered.reportsReopened += 1;
        for (const id of succeeded) expect((await log.get(id))?.status).toBe("SUCCEEDED");
        const after = await log.get(eventId);
        if (after?.status === "SUCCEEDED") succeeded.add(eventId);
        for (const n of effects.values()) expect(n).toBe(1);
      };

      let progress = 1;
      for (const cmd of cmds) {
        switch (cmd.t) {
          case "deliver": {
            const e = finalEvent(cmd.task, cancelled[cmd.task]!);
            if (cmd.kind === "original") await handle(record(e));
            else if (cmd.kind === "redeliver") await handle(record(e, { [TaskEventHeader.REDELIVER]: "watchdog" }));
            else if (cmd.kind === "replay") {
              const r = record(e, { [TaskEventHeader.REPLAY]: `rp-${++replays}` });
              lastReplay.set(cmd.task, r);
              await handle(r);
            } else if (cmd.kind === "replayAgain") {
              // The broker hands the last replay record over again (a rebalance before its offset commit).
              const r = lastReplay.get(cmd.task);
              if (r !== undefined) await handle(r);
            } else await handle(record(progressEvent(cmd.task, ++progress)));
            break;
          }
          case "fail":
            failuresLeft.set(`T${cmd.task}`, cmd.n);
            break;
          case "send":
            await sender.step();
            break;
          case "serviceDown":
            down = cmd.on;
            break;
          case "loseAnswer":
            loseAnswers += 1;
            break;
          case "forget":
            // The task service answered but lost the report (its transaction rolled back after the
            // answer): only a redelivery makes the owner report again.
            if (recorded.pop() !== undefined) covered.forgotten += 1;
            break;
          case "advance":
            clock.advance(cmd.ms);
            break;
        }
      }

      // Settle: the handler heals, the service comes back, every final event is delivered until it
      // settles, a dead one is replayed, and the reports go out.
      failuresLeft.clear();
      down = false;
      loseAnswers = 0;
      for (let i = 0; i < TASKS; i++) {
        const e = finalEvent(i, cancelled[i]!);
        for (let n = 0; n < 10 && (await log.get(e.eventId))?.status !== "SUCCEEDED"; n++) {
          const row = await log.get(e.eventId);
          if (row?.status === "DEAD") covered.deadBeforeSettle += 1;
          clock.advance(60_000);
          await handle(row?.status === "DEAD" ? record(e, { [TaskEventHeader.REPLAY]: `rp-settle-${i}` }) : record(e));
        }
      }
      // The task service's watchdog: a task whose last recorded report is not a SUCCESS for its
      // final event has its event redelivered (msgx-redeliver), and the reports go out again.
      for (let round = 0; round < 3; round++) {
        for (let n = 0; n < 20; n++) {
          clock.advance(60_000);
          await sender.step();
        }
        for (let i = 0; i < TASKS; i++) {
          const e = finalEvent(i, cancelled[i]!);
          if (recorded.filter((r) => r.eventId === e.eventId).at(-1)?.result !== "SUCCESS") {
            covered.watchdogRedeliveries += 1;
            await handle(record(e, { [TaskEventHeader.REDELIVER]: "watchdog" }));
          }
        }
      }

      for (let i = 0; i < TASKS; i++) {
        const e = finalEvent(i, cancelled[i]!);
        expect(effects.get(e.eventId)).toBe(1);
        expect(await log.get(e.eventId)).toMatchObject({ status: "SUCCEEDED", callbackStatus: "SENT" });
        const reports = recorded.filter((r) => r.eventId === e.eventId);
        expect(reports.at(-1)).toEqual({ taskId: `T${i}`, eventId: e.eventId, result: "SUCCESS", message: null });
      }
      const progressIds = new Set([...effects.keys()].filter((id) => !/#9$/.test(id)));
      expect(recorded.filter((r) => progressIds.has(r.eventId))).toEqual([]);
      for (const id of progressIds) expect(await log.get(id)).toMatchObject({ status: "SUCCEEDED", callbackStatus: null });
    },
  );

  it("covered the interesting cases", () => {
    console.info(`[task owner replay property] ${JSON.stringify(covered)}`);
    // Runs after the property (same file, in order): the generators must reach the paths they exist for.
    expect(covered.runs).toBe(300);
    expect(covered.replaysReopened).toBeGreaterThan(20);
    expect(covered.reportsReopened).toBeGreaterThan(20);
    expect(covered.deadBeforeSettle).toBeGreaterThan(5);
    expect(covered.lostAnswers).toBeGreaterThan(5);
    expect(covered.forgotten).toBeGreaterThan(5);
  });
});
