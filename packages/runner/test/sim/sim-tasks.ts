import type { Timers } from "@msgx/core";
import { TaskFeedbackStatus, type TaskEventMessage, type TaskFeedback } from "@msgx/tasks";
import type { TaskApi } from "../../src/tasks/task-api.js";
import { Prng, type SimScheduler } from "./sim-scheduler.js";
import type { SimWorld } from "./sim-world.js";

/** A call of a client (producer, executing system, owner, operator) on the leading runner's API, retried until answered; `then` runs once it was (not when the client gave up). */
export type SimClient = (what: string, call: (api: TaskApi) => Promise<unknown>, then: () => void) => void;

/** The owner service every simulated task belongs to, and the topic its events go to (`tasks.routing.topic`). */
export const SIM_TASK_OWNER = "LMS";

/**
 * The task traffic of one seed (docs/simulation.md "Tasks"): 0–4 tasks, each created by its owner,
 * dispatched by the executing system (ACS) through the API, reported on (progress, then FINISHED,
 * or cancelled by the owner, or never finished), with repeated and late reports; the owner service
 * reads the task topic and calls back on every TASK_FINISHED / TASK_CANCELLED it receives —
 * right, late, wrongly (another event's id, or FAILURE, which an operator then replays) or not at
 * all (the watchdog sends the event again), as the seed says while the faults last.
 */
export function taskTraffic(world: SimWorld, sched: SimScheduler, timers: Timers, client: SimClient, seed: number, faultyUntil: number): { readonly done: () => boolean } {
  const rng = new Prng(seed ^ 0x1b873593);
  const count = rng.int(5);
  let ended = 0;
  for (let k = 1; k <= count; k++) {
    const taskId = `t-${k}`;
    const calls: [string, (api: TaskApi) => Promise<unknown>][] = [];
    const feedback = (f: Omit<TaskFeedback, "taskId">) => calls.push([`feedback ${taskId} ${f.status} ${f.externalEventId}`, (api) => api.feedback({ taskId, ...f })]);
    calls.push([`create ${taskId}`, (api) => api.create({ taskId, ownerService: SIM_TASK_OWNER, handlerCode: "LMS_STOCK_AREA_CALL_TUBE", bizType: "ORDER", bizId: `b-${k}`, externalSystem: "ACS", payload: { k } })]);
    calls.push([`dispatched ${taskId}`, (api) => api.dispatched(taskId, `EXT-${k}`)]);
    const progress = rng.int(3);
    for (let p = 1; p <= progress; p++) feedback({ externalEventId: `e${k}-p${p}`, status: TaskFeedbackStatus.EXECUTING, progress: `${p * 30}%` });
    const end = rng.next();
    if (end < 0.7) feedback({ externalEventId: `e${k}-f`, status: TaskFeedbackStatus.FINISHED });
    else if (end < 0.85) calls.push([`cancel ${taskId}`, (api) => api.cancel(taskId, { reason: "the owner cancels", requestId: `c-${k}` })]);
    // Repeats and late reports: the same report again, a second FINISHED, a late EXECUTING, a FINISHED after a cancel.
    if (rng.chance(0.3)) feedback({ externalEventId: progress > 0 ? `e${k}-p1` : `e${k}-f`, status: progress > 0 ? TaskFeedbackStatus.EXECUTING : TaskFeedbackStatus.FINISHED });
    if (rng.chance(0.3)) feedback({ externalEventId: `e${k}-late`, status: rng.chance(0.5) ? TaskFeedbackStatus.FINISHED : TaskFeedbackStatus.EXECUTING });
    const gaps = calls.map(() => 100 + rng.int(2_000));
    const next = (i: number): void => {
      const c = calls[i];
      if (c) client(c[0], c[1], () => timers.setTimeout(() => next(i + 1), gaps[i]!));
      else ended += 1;
    };
    timers.setTimeout(() => next(0), rng.int(faultyUntil - sched.start));
  }

  // The owner service: reads its topic, calls back once per record it receives (a redelivery is a record too).
  const owner = new Prng(seed ^ 0x85ebca6b);
  let offset = 0;
  timers.setInterval(() => {
    const records = world.broker.records(world.config.tasks.routing.topic);
    for (; offset < records.length; offset++) {
      const event = JSON.parse(records[offset]!.value!) as TaskEventMessage;
      if (event.eventType === "TASK_EXECUTING") continue;
      const { taskId, eventId } = event;
      const callback = (result: "SUCCESS" | "FAILURE", id = eventId) =>
        client(`owner callback ${taskId} ${id} ${result}`, (api) => api.callback({ taskId, eventId: id, result, ...(result === "FAILURE" ? { message: "handler dead-lettered it" } : {}) }), () => {
          if (result === "FAILURE") timers.setTimeout(() => client(`operator replays ${taskId}`, (api) => api.replay({ taskIds: [taskId] }, { by: "operator", reason: "owner handler fixed" }), () => undefined), 1_000 + owner.int(2_000));
        });
      const roll = owner.next();
      const faulty = sched.clock.now() < faultyUntil;
      if (!faulty || roll < 0.55) callback("SUCCESS");
      else if (roll < 0.7 && sched.fault("owner", 1, `owner ${SIM_TASK_OWNER} answers ${eventId} late`)) timers.setTimeout(() => callback("SUCCESS"), 100 + owner.int(4_000));
      else if (roll < 0.8 && sched.fault("owner", 1, `owner ${SIM_TASK_OWNER} answers ${eventId} with another event's id`)) callback("SUCCESS", `${taskId}#${event.taskVersion - 1}`);
      else if (roll < 0.88 && sched.fault("owner", 1, `owner ${SIM_TASK_OWNER} answers ${eventId} FAILURE`)) callback("FAILURE");
      else if (roll >= 0.88 && sched.fault("owner", 1, `owner ${SIM_TASK_OWNER} never answers ${eventId}`)) continue;
      else callback("SUCCESS");
    }
  }, 1_000);
  // A client that gave up ends its task's calls too (the trace says so).
  return { done: () => ended === count };
}
