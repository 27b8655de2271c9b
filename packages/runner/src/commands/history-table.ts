import type { ApiCaller } from "@msgx/core";
import type { ReliableMessageCause } from "@msgx/reliable";
import type { TaskCause } from "@msgx/tasks";
import type { ReliableMessageLineage } from "../reliable/reliable-admin.js";
import type { TaskLineage } from "../tasks/task-api.js";
import { utcSecond } from "./lineage-table.js";
import { textTable } from "./text-table.js";

/** `POST /rm/v1/messages/:id/confirm req=… from 10.0.0.7 "agent"`. */
const callerText = (c: ApiCaller): string => `${c.route} req=${c.requestId} from ${c.remoteAddress}${c.userAgent === null ? "" : ` ${JSON.stringify(c.userAgent)}`}`;

function reliableCauseText(c: ReliableMessageCause): string {
  switch (c.kind) {
    case "api":
      return `api ${callerText(c.caller)}`;
    case "check-back":
      return `check-back answered ${c.answer}`;
    case "recovery":
      return `recovery job (last send ${c.lastSend})`;
    case "library":
      return "library call";
  }
}

function taskCauseText(c: TaskCause): string {
  switch (c.kind) {
    case "create":
      return "create";
    case "mark-dispatched":
      return `dispatched as ${c.externalTaskNo}`;
    case "dispatch":
      return `dispatch job: ${c.answer}`;
    case "feedback":
      return `feedback ${c.externalEventId} ${c.status}`;
    case "cancel":
      return `cancel ${c.requestId}: ${c.reason}`;
    case "callback":
      return `callback ${c.result} for ${c.eventId}`;
    case "watchdog":
      return "watchdog";
    case "overdue":
      return `overdue job: ${c.reason}`;
    case "replay":
      return `replay ${c.replayId} by ${c.by}`;
  }
}

/** An entry's time: its own, or for a run of repeats `×n since <first>` too. */
const whenText = (h: { readonly at: number; readonly repeats: number; readonly firstAt: number }): string =>
  h.repeats === 1 ? utcSecond(h.at) : `${utcSecond(h.at)} (×${h.repeats} since ${utcSecond(h.firstAt)})`;

/** The table's last lines: the phase or status now, and how to page on when older entries exist. */
const footer = (now: string, next: number | null): string[] => [now, ...(next === null ? [] : [`older entries: --before ${next}`])];

/** A page of a message's lineage as a text table, newest change first, with its phase now below. */
export function reliableLineageTable(l: ReliableMessageLineage): string {
  const rows = l.entries.map((h) => [String(h.version), whenText(h), `${h.from} → ${h.to}`, h.event, reliableCauseText(h.cause), h.detail ?? ""]);
  return [...textTable(["VERSION", "AT (UTC)", "PHASE", "EVENT", "CAUSE", "DETAIL"], rows), ...footer(`message ${l.messageId} is ${l.phase}`, l.next)].join("\n");
}

/** A page of a task's lineage as a text table, newest change first, with its status now below. */
export function taskLineageTable(l: TaskLineage): string {
  const rows = l.entries.map((h) => [
    String(h.version),
    whenText(h),
    `${h.from ?? "-"} → ${h.to}`,
    taskCauseText(h.cause),
    h.caller === null ? "-" : callerText(h.caller),
    h.detail ?? "",
  ]);
  return [...textTable(["VERSION", "AT (UTC)", "STATUS", "CAUSE", "CALLER", "DETAIL"], rows), ...footer(`task ${l.taskId} (${l.taskNo}) is ${l.status}`, l.next)].join("\n");
}
