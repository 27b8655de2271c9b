/**
 * docs/task-routing.md "States and transitions" lists every task status and every transition of the
 * state machine with the test that holds it (issue 21). This keeps the table true, both ways:
 * - against the code: every row's transition is legal from its status and `evolveTask` really
 *   leads where the row says; every legal (status, transition) pair of `LEGAL_TASK_FROM` has a row;
 *   every status is in the table; a row with no transition (an input refused, ignored or a no-op)
 *   stays in its status; `(new)` is before the task exists: `create` leads to what `newTaskRecord`
 *   gives, a refused create stays `(new)`;
 * - against the tests: every cited test file exists and holds every cited title (a string search,
 *   as for docs/wire-rules.md). A row with no test says `none` in both columns and is listed under
 *   "Transitions with no test", so a missing test is visible rather than hidden by a wrong citation.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { evolveTask, LEGAL_TASK_FROM, type TaskTransition } from "../../../tasks/src/task-machine.js";
import { newTaskRecord, TASK_STATUSES, type TaskStatus } from "../../../tasks/src/task-record.js";
import { codeSpans, inSource, tableRows } from "./doc-table.js";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));
const DOC = "docs/task-routing.md";
const UNTESTED = "### Transitions with no test";
/** The "status" of a task not created yet. */
const NEW = "(new)";

interface Row {
  readonly line: number;
  readonly from: string;
  readonly input: string;
  /** An `evolveTask` transition type, or `none` for an input that changes nothing. */
  readonly transition: string;
  readonly to: string;
  readonly file: string;
  readonly names: readonly string[];
}

export function taskStateRows(markdown: string): Row[] {
  return tableRows(markdown, /^\|\s*from\s*\|\s*input\s*\|\s*transition\s*\|\s*to\s*\|/).map(({ line, cells: [from = "", input = "", transition = "", to = "", file = "", names = ""] }) => ({
    line,
    from: codeSpans(from)[0] ?? from,
    input,
    transition: codeSpans(transition)[0] ?? transition,
    to: codeSpans(to)[0] ?? to,
    file: file === "none" ? "none" : (codeSpans(file)[0] ?? file),
    names: names === "none" ? [] : codeSpans(names),
  }));
}

const doc = readFileSync(`${repo}${DOC}`, "utf8");
const rows = taskStateRows(doc);
const isStatus = (s: string): s is TaskStatus => (TASK_STATUSES as readonly string[]).includes(s);
const isFrom = (s: string): boolean => s === NEW || isStatus(s);
const isTransition = (t: string): t is TaskTransition["type"] => Object.hasOwn(LEGAL_TASK_FROM, t);

/** One instance of each transition, to run `evolveTask` on the row's status. */
const SAMPLE: { readonly [T in TaskTransition["type"]]: Extract<TaskTransition, { type: T }> } = {
  dispatched: { type: "dispatched", externalTaskNo: "ACS-1", attempted: true },
  dispatchFailed: { type: "dispatchFailed", error: "503", nextDispatchAt: 2_000 },
  dispatchRefused: { type: "dispatchRefused", reason: "unknown point" },
  executing: { type: "executing" },
  finished: { type: "finished", eventId: "T1#2", reason: null },
  cancelled: { type: "cancelled", eventId: "T1#2", reason: "operator" },
  callbackSucceeded: { type: "callbackSucceeded" },
  callbackFailed: { type: "callbackFailed", error: "dead" },
  replayed: { type: "replayed" },
  callbackRedelivered: { type: "callbackRedelivered" },
  overdue: { type: "overdue", reason: "HEARTBEAT" },
};
const created = newTaskRecord({ taskId: "T1", ownerService: "LMS", handlerCode: "LMS_MOVE", bizType: "MOVE", bizId: "B1", externalSystem: "ACS" }, 1_000, "T202607130001");

describe(`${DOC} "States and transitions" holds for the state machine and cites tests that exist`, () => {
  it("has the table, each row naming a status, an input, a transition (or none), a status, a file and titles (or none, none)", () => {
    expect(rows.length).toBeGreaterThan(20);
    const transitionOk = (r: Row) => r.transition === "none" || (r.from === NEW ? r.transition === "create" : isTransition(r.transition));
    const bad = rows.filter((r) => !isFrom(r.from) || !isFrom(r.to) || r.input === "" || !transitionOk(r) || (r.file === "none") !== (r.names.length === 0));
    expect(bad.map((r) => `line ${r.line}: ${r.from} ${r.transition} ${r.to}`)).toEqual([]);
  });

  it("every row is what evolveTask does: a legal transition leading to the stated status, or no transition and the same status", () => {
    expect(rows.filter((r) => r.from === NEW && r.transition === "create"), "a row for create").not.toEqual([]);
    const wrong: string[] = [];
    for (const r of rows) {
      const { from, transition } = r;
      if (from === NEW && transition === "create") {
        if (r.to !== created.status) wrong.push(`line ${r.line}: create leads to ${created.status}, not ${r.to}`);
        continue;
      }
      if (transition === "none") {
        if (r.to !== from) wrong.push(`line ${r.line}: no transition, yet ${from} -> ${r.to}`);
        continue;
      }
      if (!isStatus(from) || !isTransition(transition)) continue;
      if (!LEGAL_TASK_FROM[transition].includes(from)) {
        wrong.push(`line ${r.line}: ${transition} is not legal from ${from}`);
        continue;
      }
      const next = evolveTask({ ...created, status: from, lastEventId: "T1#1" }, SAMPLE[transition], 2_000).status;
      if (next !== r.to) wrong.push(`line ${r.line}: ${r.transition} from ${r.from} leads to ${next}, not ${r.to}`);
    }
    expect(wrong).toEqual([]);
  });

  it("has a row for every legal (status, transition) pair and names every status", () => {
    const have = new Set(rows.map((r) => `${r.from} ${r.transition}`));
    const missing = Object.entries(LEGAL_TASK_FROM).flatMap(([t, froms]) => froms.filter((f) => !have.has(`${f} ${t}`)).map((f) => `${f} ${t}`));
    expect(missing).toEqual([]);
    const named = new Set(rows.flatMap((r) => [r.from, r.to]));
    expect(TASK_STATUSES.filter((s) => !named.has(s))).toEqual([]);
  });

  it("every cited test file exists and holds every cited title", () => {
    const problems: string[] = [];
    for (const r of rows.filter((x) => x.file !== "none")) {
      const path = `${repo}${r.file}`;
      if (!existsSync(path)) {
        problems.push(`line ${r.line}: no file ${r.file}`);
        continue;
      }
      const source = readFileSync(path, "utf8");
      for (const name of r.names) if (!inSource(source, name)) problems.push(`line ${r.line}: ${r.file} has no title ${JSON.stringify(name)}`);
    }
    expect(problems).toEqual([]);
  });

  it(`lists every row without a test under "${UNTESTED.slice(4)}"`, () => {
    const untested = rows.filter((r) => r.file === "none");
    if (untested.length === 0) return;
    expect(doc).toContain(UNTESTED);
    const tail = doc.slice(doc.indexOf(UNTESTED));
    for (const r of untested) expect(tail, `line ${r.line}`).toContain(`${r.from} ${r.transition}`);
  });
});
