import { silentLogger, type StepOutcome } from "@msgx/core";
import { describe, expect, it } from "vitest";
import { driveRouter } from "../src/loops/router-loops.js";

/** A router of two steps: `a` asks to wake `b` on its second run; `b` would otherwise wait an hour. */
function twoSteps() {
  const runs: string[] = [];
  let aRuns = 0;
  const steps: Record<string, () => StepOutcome> = {
    a: () => ((aRuns += 1), { after: aRuns === 1 ? 30 : 3_600_000, wake: aRuns === 2 ? ["b"] : [] }),
    b: () => ({ after: 3_600_000, wake: [] }),
  };
  return {
    runs,
    router: {
      names: Object.keys(steps),
      run: async (name: string) => (runs.push(name), steps[name]!()),
    },
  };
}

describe("driveRouter", () => {
  it("runs each step at once, waits as long as it asks, and wakes the steps an outcome names", async () => {
    const { runs, router } = twoSteps();
    const controller = new AbortController();
    const loops = driveRouter(router, { logger: silentLogger, signal: controller.signal });
    await new Promise((r) => setTimeout(r, 200));
    expect(runs).toEqual(["a", "b", "a", "b"]);
    loops.wake(["b"]);
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).toEqual(["a", "b", "a", "b", "b"]);
    controller.abort();
    await loops.done;
  });

  it("starts no step while mayStart says no (past the leadership lease's window), and runs them once it says yes", async () => {
    const { runs, router } = twoSteps();
    const controller = new AbortController();
    let leading = false;
    const loops = driveRouter(router, { logger: silentLogger, signal: controller.signal, mayStart: () => leading });
    await new Promise((r) => setTimeout(r, 100));
    expect(runs).toEqual([]);
    leading = true;
    loops.wake(["a", "b"]);
    await new Promise((r) => setTimeout(r, 20));
    expect(runs).toEqual(["a", "b"]);
    controller.abort();
    await loops.done;
  });
});
