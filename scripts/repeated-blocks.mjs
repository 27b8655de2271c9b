#!/usr/bin/env node
/**
 * The repeated-block count of STYLE.md 12 ("one place per rule"): runs the workplace tool
 * `duplicates` over packages/, keeps the pairs that are not boilerplate and whose both sides are
 * product source (a `/src/` path, not a test, testing helper, fake or contract suite), marks the
 * ones the allow-list below explains, prints them and `repeated blocks: N (allowed M)`.
 *
 * Exits 1 when more than MAX_BLOCKS remain or any remaining pair is not in the allow-list; 2 when
 * `duplicates` is missing or did not read the whole tree. Not run in CI: `duplicates` is not a
 * project dependency. Usage: `node scripts/repeated-blocks.mjs` from the repository root.
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const MAX_BLOCKS = 5;

/**
 * Pairs that may stay, each with why: the logic is not the same, only the shape. Matched on both
 * paths (either order), whatever the line numbers. Paths are relative to packages/.
 *
 * State tables (STYLE.md 2) have one idiom, `@msgx/core`'s `states(...)` (`base/states.ts`): a
 * table whose values are its names is one line, `export const X = states("A", "B")`, its union
 * `export type X = ValueOf<typeof X>`, and the doc block above the table says state by state how
 * it is entered and left; a table whose values are not its names (wire values, step names) stays
 * an `as const` object with the same `ValueOf` union. What the tool still pairs is that two-line
 * idiom followed by a record interface: the records are different.
 */
const STATE_TABLE_THEN_RECORD =
  "a state table in the one idiom (`states(...)` and its `ValueOf` union, STYLE.md 2) followed by a record interface of readonly fields: different states, different records, only the shape is shared";

const ALLOWED = [
  { a: "core/src/outbox/outbox-event.ts", b: "tasks/src/task-consume-log.ts", reason: STATE_TABLE_THEN_RECORD },
  { a: "core/src/outbox/outbox-event.ts", b: "tasks/src/task-feedback.ts", reason: STATE_TABLE_THEN_RECORD },
  { a: "tasks/src/task-consume-log.ts", b: "tasks/src/task-feedback.ts", reason: STATE_TABLE_THEN_RECORD },
  { a: "adapters-pg/src/tasks/task-rows.ts", b: "adapters-pg/src/tasks/task-rows.ts", reason: "the row mappers of task_feedback and task_callback: each maps its own table's columns, which share names" },
  { a: "runner/console/src/views/lineage-timeline.tsx", b: "runner/console/src/views/reliable-view.tsx", reason: "the first cells of two different tables' rows (a version's events, a reliable message); each cell names its own value; the phone-card label rule they share is console.css's (`table.cards-narrow td[data-label]`)" },
];

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const run = spawnSync("duplicates", ["--repo", "packages", "--most", "200", "--seconds", "300"], { cwd: root, encoding: "utf8" });
if (run.error !== undefined) {
  process.stderr.write(`repeated-blocks: cannot run duplicates (${run.error.message}); it is a workplace tool, not a project dependency\n`);
  process.exit(2);
}
const lines = run.stdout.split("\n");
const incomplete = lines.filter((l) => l.startsWith("incomplete:"));

const NOT_PRODUCT = /test|fake|contract/; // tests, testing helpers, fakes, contract suites
const product = (path) => path.includes("/src/") && !NOT_PRODUCT.test(path);
const ROW = /^(D\d+) (\S+?):(\d+-\d+) ~ (\S+?):(\d+-\d+)(.*)$/;

const kept = [];
for (const line of lines) {
  const m = ROW.exec(line);
  if (m === null) continue;
  const [, id, a, , b, , rest] = m;
  if (/\bboilerplate\b/.test(rest) || !product(a) || !product(b)) continue;
  const allowed = ALLOWED.find((e) => (e.a === a && e.b === b) || (e.a === b && e.b === a));
  kept.push({ line, id, allowed });
}

for (const k of kept) process.stdout.write(`${k.line}${k.allowed ? `  [allowed: ${k.allowed.reason}]` : ""}\n`);
const allowedCount = kept.filter((k) => k.allowed).length;
process.stdout.write(`repeated blocks: ${kept.length} (allowed ${allowedCount})\n`);
for (const l of incomplete) process.stdout.write(`${l}\n`);

if (incomplete.length > 0) process.exit(2);
process.exit(kept.length > MAX_BLOCKS || allowedCount < kept.length ? 1 : 0);
