// Prints the plain closing line CI reads ("N passed, N failed, N skipped") from vitest's JSON
// report, and fails when a suite was skipped under MSGX_REQUIRE_SERVICES=1.
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? ".ci/vitest-results.json";
const report = JSON.parse(readFileSync(file, "utf8"));
const passed = report.numPassedTests ?? 0;
// A suite that fails to load has no failed tests of its own: count it so it cannot pass silently.
const failed = (report.numFailedTests ?? 0) || (report.numFailedTestSuites ?? 0);
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
if (process.env.MSGX_REQUIRE_SERVICES === "1" && skipped > 0) {
  console.error(`MSGX_REQUIRE_SERVICES=1 but ${skipped} tests were skipped`);
  process.exit(1);
}
if (failed > 0 || report.success === false) process.exit(1);
