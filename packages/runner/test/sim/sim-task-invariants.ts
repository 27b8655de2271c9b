import { PENDING_CALLBACK_STATUSES, TASK_TARGET, type TaskEventMessage } from "@msgx/tasks";
import type { SimWorld } from "./sim-world.js";

/**
 * Names a failure in which an owner's FAILURE callback committed after an operator's replay of the
 * task and undid it (docs/simulation.md, Findings: fixed by fencing task transactions).
 */
export const REPLAY_UNDONE = "replay undone:";

/**
 * "A task event once per state change" (issue 35), checked after every step: each change of a task
 * that owes its owner an event (an APPLIED feedback or cancel) wrote exactly one event of its own
 * (`<taskId>#<version>`), in the same transaction — none lost, none for a repeated or refused
 * report; an event row again under the same id only for a redelivery (the watchdog) or a replay;
 * a task's events in rising versions, and at most one final event (FINISHED or CANCELLED). Once
 * drained: every task event published, no task still waiting for its owner.
 */
export class SimTaskInvariants {
  #eventsSeen = 0;
  #feedbackSeen = 0;
  #callbacksSeen = 0;
  #replaysSeen = 0;
  /** Tasks an operator replayed, and those whose owner's FAILURE was recorded after such a replay (in commit order). */
  readonly #replayed = new Set<string>();
  readonly #undone = new Set<string>();
  /** Task event id → outbox rows written under it. */
  readonly #rows = new Map<string, number>();
  /** Task event id → the APPLIED report that owes it. */
  readonly #owed = new Set<string>();
  /** Task id → the version of its newest event, and its final event. */
  readonly #tasks = new Map<string, { version: number; final: string | undefined }>();

  constructor(readonly world: SimWorld) {}

  /** A broken invariant, or undefined. */
  check(): string | undefined {
    const { tables } = this.world.tasks;
    // A report and its event commit together: read the reports first.
    for (; this.#feedbackSeen < tables.feedback.length; this.#feedbackSeen++) {
      const f = tables.feedback[this.#feedbackSeen]!;
      if (f.outcome === "APPLIED" && f.eventId !== null) {
        if (this.#owed.has(f.eventId)) return `task ${f.taskId}: two applied reports owe event ${f.eventId}`;
        this.#owed.add(f.eventId);
      }
    }
    for (; this.#replaysSeen < tables.replays.length; this.#replaysSeen++) for (const id of tables.replays[this.#replaysSeen]!.taskIds) this.#replayed.add(id);
    for (; this.#callbacksSeen < tables.callbacks.length; this.#callbacksSeen++) {
      const c = tables.callbacks[this.#callbacksSeen]!;
      if (c.outcome === "RECORDED" && this.#replayed.has(c.taskId)) this.#undone.add(c.taskId);
    }
    const events = this.world.store.tables.events;
    for (; this.#eventsSeen < events.length; this.#eventsSeen++) {
      const e = events[this.#eventsSeen]!;
      if (e.target !== TASK_TARGET && !e.target.startsWith(`${TASK_TARGET}:`)) continue;
      const m = e.payload as unknown as TaskEventMessage;
      const rows = (this.#rows.get(m.eventId) ?? 0) + 1;
      this.#rows.set(m.eventId, rows);
      const task = tables.tasks.get(m.taskId);
      if (rows > 1) {
        const again = (task?.callbackAlerts ?? 0) + tables.replays.filter((r) => r.taskIds.includes(m.taskId)).length;
        if (rows - 1 > again) return `task event ${m.eventId} written ${rows} times for one state change (${again} redeliveries and replays)`;
        continue;
      }
      if (!this.#owed.has(m.eventId)) return `task event ${m.eventId} (${m.eventType}) written without a state change that owes it`;
      const seen = this.#tasks.get(m.taskId) ?? { version: 0, final: undefined };
      if (m.taskVersion <= seen.version) return `task event ${m.eventId} after the event of version ${seen.version}`;
      seen.version = m.taskVersion;
      if (m.eventType !== "TASK_EXECUTING") {
        if (seen.final !== undefined) return `task ${m.taskId} published two final events: ${seen.final} and ${m.eventId} (${m.eventType})`;
        seen.final = m.eventId;
      }
      this.#tasks.set(m.taskId, seen);
    }
    for (const id of this.#owed) if (!this.#rows.has(id)) return `task event ${id} lost: its state change committed without it`;
    return undefined;
  }

  /** Once drained: every task event on the broker, every task's owner answered. */
  final(): string | undefined {
    const { world } = this;
    const published = new Set(world.broker.records(world.config.tasks.routing.topic).map((r) => (JSON.parse(r.value!) as TaskEventMessage).eventId));
    for (const id of this.#rows.keys()) if (!published.has(id)) return `task event ${id} never reached its owner's topic`;
    for (const task of world.tasks.tables.tasks.values()) {
      const undone = this.#undone.has(task.taskId) && task.callbackError !== null ? `${REPLAY_UNDONE} an owner's FAILURE recorded after the replay; ` : "";
      if (PENDING_CALLBACK_STATUSES.includes(task.status)) return `${undone}task ${task.taskId} still waits for its owner's callback (${task.status}${task.callbackError ? `, ${task.callbackError}` : ""})`;
    }
    return undefined;
  }
}
