/**
 * Task-event routing end to end over fakes (SPEC §3): random interleavings of external feedback
 * (duplicates, repeats under new ids, conflicting reports), dispatches, relay steps with lost
 * acknowledgements and crashes, owner consumers that crash (inside the handler transaction,
 * right after its commit, before committing offsets: redelivery), handler failures, outages of
 * the task database and the owners' databases, a task service that is down or loses callback
 * responses — then everything settles and each task must have had its handler effect applied
 * exactly once (or, when its handler failed past the budget or its code is unknown, never, with
 * a dead letter reported back) and be in its final status.
 */
import { fc, it } from "@fast-check/vitest";
import { afterAll, describe, expect } from "vitest";
import { DeliveryStatus } from "@msgx/core";
import { TaskConsumeStatus } from "../src/task-consume-log.js";
import { TaskStatus } from "../src/task-record.js";
import { DEFAULT_TASK_ROUTING, type TaskRouting } from "../src/task-routing-config.js";
import { HANDLER_POLICY, HANDLERS, OWNERS, TaskRoutingWorld } from "./task-routing-world.js";

const NUM_RUNS = 500;
const PER_OWNER: TaskRouting = { mode: "topic-per-owner", topicPattern: "{owner}_TASK_EVENT_TOPIC", owners: OWNERS };

interface TaskSpec {
  readonly owner: number;
  /** An index into the owner's handlers, or -1 for a code no handler has. */
  readonly handler: number;
  readonly failFirst: number;
  readonly final: "FINISHED" | "CANCELLED";
  readonly dispatched: boolean;
}

type Cmd =
  | { readonly t: "feedback"; readonly task: number; readonly status: "FINISHED" | "CANCELLED" | "EXECUTING"; readonly ext: number }
  | { readonly t: "dispatch"; readonly task: number }
  | { readonly t: "dispatchJob" }
  | { readonly t: "dispatcherFault"; readonly fault: "down" | "up" | "fail" | "lose-answer" }
  | { readonly t: "cancel"; readonly task: number }
  | { readonly t: "relay" }
  | { readonly t: "consume"; readonly owner: number; readonly n: number }
  | { readonly t: "commit"; readonly owner: number }
  | { readonly t: "callbacks"; readonly owner: number }
  | { readonly t: "advance"; readonly ms: number }
  | { readonly t: "crashOwner"; readonly owner: number; readonly at: "now" | "consume.before-commit" | "consume.after-commit" | "callback.after-report" }
  | { readonly t: "crashRelay"; readonly afterSend: boolean }
  | { readonly t: "loseAcks"; readonly n: number }
  | { readonly t: "taskDb"; readonly fault: "commit" | "commitUnknown" | "down"; readonly ms: number }
  | { readonly t: "ownerDb"; readonly owner: number; readonly fault: "commit" | "commitUnknown" | "down"; readonly ms: number }
  | { readonly t: "taskServiceDown"; readonly ms: number }
  | { readonly t: "loseCallback" };

const taskArb: fc.Arbitrary<TaskSpec> = fc.record({
  owner: fc.integer({ min: 0, max: 1 }),
  handler: fc.integer({ min: -1, max: 5 }).map((h) => (h >= 2 ? h % 2 : h)),
  failFirst: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.integer({ min: 1, max: 2 }) }, { weight: 1, arbitrary: fc.integer({ min: 3, max: 5 }) }),
  final: fc.constantFrom("FINISHED" as const, "CANCELLED" as const),
  dispatched: fc.boolean(),
});

const cmdArb = (tasks: number): fc.Arbitrary<Cmd> => {
  const task = fc.integer({ min: 0, max: tasks - 1 });
  const owner = fc.integer({ min: 0, max: 1 });
  const dbFault = fc.constantFrom("commit" as const, "commitUnknown" as const, "down" as const);
  // Up to 5 minutes: far past the handler retry budget (3 attempts, 1-2 s backoff).
  const outageMs = fc.integer({ min: 1, max: 5 * 60_000 });
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ t: fc.constant("feedback" as const), task, status: fc.constantFrom("FINISHED" as const, "CANCELLED" as const, "EXECUTING" as const), ext: fc.integer({ min: 0, max: 2 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("dispatch" as const), task }) },
    { weight: 2, arbitrary: fc.constant({ t: "dispatchJob" as const }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("dispatcherFault" as const), fault: fc.constantFrom("down" as const, "up" as const, "fail" as const, "lose-answer" as const) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("cancel" as const), task }) },
    { weight: 5, arbitrary: fc.constant({ t: "relay" as const }) },
    { weight: 6, arbitrary: fc.record({ t: fc.constant("consume" as const), owner, n: fc.integer({ min: 1, max: 4 }) }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant("commit" as const), owner }) },
    { weight: 5, arbitrary: fc.record({ t: fc.constant("callbacks" as const), owner }) },
    { weight: 3, arbitrary: fc.record({ t: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 6_000 }) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        t: fc.constant("crashOwner" as const),
        owner,
        at: fc.constantFrom("now" as const, "consume.before-commit" as const, "consume.after-commit" as const, "callback.after-report" as const),
      }),
    },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("crashRelay" as const), afterSend: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("loseAcks" as const), n: fc.integer({ min: 1, max: 2 }) }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("taskDb" as const), fault: dbFault, ms: outageMs }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("ownerDb" as const), owner, fault: dbFault, ms: outageMs }) },
    { weight: 1, arbitrary: fc.record({ t: fc.constant("taskServiceDown" as const), ms: fc.integer({ min: 1, max: 30_000 }) }) },
    { weight: 1, arbitrary: fc.constant({ t: "loseCallback" as const }) },
  );
};

const scenarioArb = fc
  .record({ routing: fc.constantFrom(DEFAULT_TASK_ROUTING, PER_OWNER), tasks: fc.array(taskArb, { minLength: 1, maxLength: 6 }) })
  .chain(({ routing, tasks }) => fc.record({ routing: fc.constant(routing), tasks: fc.constant(tasks), cmds: fc.array(cmdArb(tasks.length), { minLength: 10, maxLength: 100, size: "max" }) }));

const covered = { consumedInRun: 0, callbacksInRun: 0, crashInHandlerTx: 0, crashAfterHandlerCommit: 0, crashAfterCallback: 0, crashAfterBrokerAck: 0, runs: 0, perOwnerRuns: 0, tasks: 0, duplicateFeedback: 0, redeliveries: 0, handlerFailures: 0, dead: 0, unknownHandler: 0, ownerCrashes: 0, relayCrashes: 0, resent: 0, callbackFaults: 0, taskDbFaults: 0, cancelled: 0, executingEvents: 0, deadProgress: 0, jobDispatched: 0, apiCancels: 0, externalCancels: 0 };

const taskId = (i: number) => `T${i}`;
const ownerOf = (spec: TaskSpec): string => OWNERS[spec.owner]!;
const codeOf = (spec: TaskSpec): string => {
  const codes = HANDLERS[ownerOf(spec)]!;
  return spec.handler < 0 ? `${ownerOf(spec)}_NO_SUCH_HANDLER` : codes[spec.handler % codes.length]!;
};

async function run(world: TaskRoutingWorld, cmds: readonly Cmd[]): Promise<void> {
  for (const cmd of cmds) {
    const o = "owner" in cmd ? world.owners.get(OWNERS[cmd.owner]!)! : undefined;
    switch (cmd.t) {
      case "feedback": {
        const answer = await world.service.feedback({ taskId: taskId(cmd.task), externalEventId: `ACS-${cmd.ext}`, status: cmd.status }).catch(() => {
          covered.taskDbFaults += 1;
          return undefined;
        });
        if (answer?.duplicate === true || answer?.entry.outcome === "IGNORED") covered.duplicateFeedback += 1;
        break;
      }
      case "dispatch":
        await world.service.markDispatched(taskId(cmd.task), `ACS-NO-${cmd.task}`).catch(() => undefined);
        break;
      case "dispatchJob": {
        const step = await world.dispatchJob.step().catch(() => undefined);
        if (step !== undefined) covered.jobDispatched += step.dispatched;
        break;
      }
      case "dispatcherFault":
        if (cmd.fault === "down") world.dispatcher.down = true;
        else if (cmd.fault === "up") world.dispatcher.down = false;
        else world.dispatcher.script(cmd.fault);
        break;
      case "cancel": {
        const answer = await world.service.cancel(taskId(cmd.task), { reason: "user cancel", requestId: `C-${cmd.task}` }).catch(() => undefined);
        if (answer?.outcome === "cancelled") covered.apiCancels += 1;
        break;
      }
      case "relay":
        await world.relay();
        break;
      case "consume":
        for (let i = 0; i < cmd.n; i++) {
          if (!(await o!.consumeOne())) break;
          covered.consumedInRun += 1;
        }
        break;
      case "commit":
        o!.commitOffsets();
        break;
      case "callbacks":
        if (await o!.sendCallbacks()) covered.callbacksInRun += 1;
        break;
      case "advance":
        world.advance(cmd.ms);
        break;
      case "crashOwner":
        if (cmd.at === "now") o!.crash();
        else o!.crashAt = cmd.at;
        break;
      case "crashRelay":
        if (cmd.afterSend) world.relayCrashAt = "dispatch.after-send";
        else {
          world.relayCrashes += 1;
          world.restartRelay();
        }
        break;
      case "loseAcks":
        world.broker.loseNextAcks(cmd.n);
        break;
      case "taskDb":
        if (cmd.fault === "commit") world.pipeline.faults.failNext("task.commit");
        else if (cmd.fault === "commitUnknown") world.taskStore.commitUnknownNext = true;
        else world.taskDbDownFor(cmd.ms);
        break;
      case "ownerDb":
        if (cmd.fault === "commit") {
          // A failed COMMIT fails the attempt it ends: it spends one like a handler failure.
          o!.log.faults.failNext("consume.commit");
          o!.commitFaultsArmed += 1;
        }
        else if (cmd.fault === "commitUnknown") o!.log.commitUnknownNext = true;
        else world.ownerDbDownFor(o!.owner, cmd.ms);
        break;
      case "taskServiceDown":
        world.taskServiceDownUntil = world.clock.now() + cmd.ms;
        break;
      case "loseCallback":
        world.loseCallbackResponses += 1;
        break;
    }
  }
}

describe("task-event routing over fakes (property)", () => {
  afterAll(() => {
    console.info(`[task-routing property] ${NUM_RUNS} runs: ${JSON.stringify(covered)}`);
  });

  it.prop([scenarioArb], { numRuns: NUM_RUNS })("every task's handler effect is applied exactly once (or dead-lettered and reported), and the task ends final", async ({ routing, tasks, cmds }) => {
    const world = new TaskRoutingWorld(routing);
    covered.runs += 1;
    if (routing.mode === "topic-per-owner") covered.perOwnerRuns += 1;
    for (const [i, spec] of tasks.entries()) {
      const id = taskId(i);
      await world.service.create({ taskId: id, ownerService: ownerOf(spec), handlerCode: codeOf(spec), bizType: "BIZ", bizId: `B${i}`, externalSystem: "ACS", payload: { i } });
      if (spec.dispatched) await world.service.markDispatched(id, `ACS-NO-${i}`);
      world.owners.get(ownerOf(spec))!.failFirst.set(id, spec.failFirst);
    }

    await run(world, cmds);
    await world.settle();
    // The external system reports every task that is still open, then everything settles again.
    for (const [i, spec] of tasks.entries()) {
      // The external system retries until it gets an answer (a one-shot fault may still be armed).
      for (let attempt = 0; attempt < 3; attempt++) {
        const ok = await world.service.feedback({ taskId: taskId(i), externalEventId: "ACS-final", status: spec.final }).then(
          () => true,
          () => false,
        );
        if (ok) break;
      }
    }
    await world.settle();

    covered.tasks += tasks.length;
    covered.relayCrashes += world.relayCrashes;
    covered.callbackFaults += world.callbackFaults;
    const events = world.pipeline.tables.events;
    expect(events.every((e) => e.status === DeliveryStatus.SENT)).toBe(true);
    const records = [...new Set(world.broker.topicNames())].flatMap((t) => world.broker.records(t));
    covered.resent += records.length - events.length;

    for (const [i, spec] of tasks.entries()) {
      const id = taskId(i);
      const owner = world.owners.get(ownerOf(spec))!;
      const other = world.owners.get(OWNERS[1 - spec.owner]!)!;
      const task = (await world.service.get(id))!;
      const feedback = await world.taskStore.feedback(id);
      const applied = feedback.filter((f) => f.outcome === "APPLIED" && f.status !== "EXECUTING");
      // One final owner event per task, whatever was reported how often; before it, one
      // TASK_EXECUTING per applied EXECUTING report, each taken on once by the owner and never
      // reported back.
      expect(applied).toHaveLength(1);
      const typeOf = (e: (typeof events)[number]) => (e.payload as { eventType: string }).eventType;
      expect(events.filter((e) => e.partitionKey === id && typeOf(e) !== "TASK_EXECUTING")).toHaveLength(1);
      const executing = events.filter((e) => e.partitionKey === id && typeOf(e) === "TASK_EXECUTING");
      expect(executing.map((e) => e.stateVersion)).toEqual(feedback.filter((f) => f.outcome === "APPLIED" && f.status === "EXECUTING").map((f) => Number(f.eventId!.split("#")[1])));
      covered.executingEvents += executing.length;
      const executingRows = [...owner.log.rows.values()].filter((r) => r.taskId === id && r.eventType === "TASK_EXECUTING");
      expect(executingRows.map((r) => r.eventId).sort()).toEqual(executing.map((e) => (e.payload as { eventId: string }).eventId).sort());
      // The owner's handlers have no onTaskExecuting: acknowledged; never reported back (whatever
      // the owner does with a progress event for a code it does not know).
      // No handler runs for progress, so only failed COMMITs of the owner's database can spend its
      // attempts: it ends dead only when at least a whole budget of them was armed.
      for (const r of executingRows) {
        expect(r.callbackStatus).toBeNull();
        if (spec.handler < 0 || r.status === TaskConsumeStatus.SUCCEEDED) continue;
        expect(r.status).toBe(TaskConsumeStatus.DEAD);
        expect(owner.commitFaultsArmed).toBeGreaterThanOrEqual(HANDLER_POLICY.maxAttempts);
        covered.deadProgress += 1;
      }
      const finished = applied[0]!.status === "FINISHED";
      if (!finished) covered.cancelled += 1;
      const [kind, other_] = finished ? ["finish", "cancel"] : ["cancel", "finish"];
      // The dispatch job's number is the external system's; a task cancelled through the API after
      // its dispatch was recorded is cancelled in the external system too.
      const held = world.dispatcher.tasks.get(id);
      if (task.externalTaskNo?.startsWith("EXT-") === true) expect(held?.externalTaskNo).toBe(task.externalTaskNo);
      const apiCancel = feedback.find((f) => f.externalEventId === `C-${i}` && f.outcome === "APPLIED");
      if (apiCancel !== undefined && task.externalTaskNo !== null && held !== undefined) {
        expect(held.status).toBe("CANCELLED");
        covered.externalCancels += 1;
      }
      const rows = [...owner.log.rows.values()].filter((r) => r.taskId === id && r.eventType !== "TASK_EXECUTING");
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect([...other.log.rows.values()].filter((r) => r.taskId === id)).toEqual([]);
      expect(other.effects.has(`${kind}:${id}`) || other.effects.has(`${other_}:${id}`)).toBe(false);
      expect(owner.effects.has(`${other_}:${id}`)).toBe(false);
      expect(row.callbackStatus).toBe("SENT");
      if (row.status === TaskConsumeStatus.SUCCEEDED) {
        expect(owner.effects.get(`${kind}:${id}`)).toBe(1);
        expect(task.status).toBe(finished ? TaskStatus.FINISHED : TaskStatus.CANCELLED);
        expect(spec.handler).toBeGreaterThanOrEqual(0);
      } else {
        expect(row.status).toBe(TaskConsumeStatus.DEAD);
        covered.dead += 1;
        expect(owner.effects.has(`${kind}:${id}`)).toBe(false);
        expect(task.status).toBe(finished ? TaskStatus.FINISHED_PENDING_CALLBACK : TaskStatus.CANCEL_PENDING_CALLBACK);
        expect(task.callbackError).toBe(row.errorMsg);
        if (spec.handler < 0) {
          covered.unknownHandler += 1;
          expect(row.errorMsg).toContain("unknown handler code");
        } else {
          // Only an event whose attempts failed the whole budget may end dead.
          expect(spec.failFirst + owner.commitFaultsArmed).toBeGreaterThanOrEqual(HANDLER_POLICY.maxAttempts);
          expect(row.attempts).toBe(HANDLER_POLICY.maxAttempts);
        }
      }
      if ((owner.calls.get(id) ?? 0) > 0 && spec.failFirst > 0) covered.handlerFailures += 1;
      const callbacks = await world.taskStore.callbacks(id);
      expect(callbacks.filter((c) => c.outcome === "APPLIED").length).toBe(row.status === TaskConsumeStatus.SUCCEEDED ? 1 : 0);
      expect(callbacks.filter((c) => c.outcome === "REJECTED")).toEqual([]);
    }
    covered.crashAfterBrokerAck += world.relayCrashesAfterSend;
    for (const o of world.owners.values()) {
      covered.crashInHandlerTx += o.fired["consume.before-commit"];
      covered.crashAfterHandlerCommit += o.fired["consume.after-commit"];
      covered.crashAfterCallback += o.fired["callback.after-report"];
      covered.redeliveries += o.steps.filter((s) => s.did === "duplicate").length;
      covered.ownerCrashes += o.crashes;
    }
  });
});
