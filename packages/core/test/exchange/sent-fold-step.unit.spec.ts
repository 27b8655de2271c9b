import { describe, expect, it } from "vitest";
import { sentFoldStep } from "../../src/exchange/sent-fold-step.js";
import type { OutboxStore } from "../../src/delivery/outbox-store.js";

/** An outbox whose folds move the given counts in turn, recording each limit asked for. */
function folding(moves: number[]): { outbox: OutboxStore; limits: number[] } {
  const limits: number[] = [];
  const outbox = {
    foldSent: async (limit: number) => {
      limits.push(limit);
      return moves.shift() ?? 0;
    },
  } as unknown as OutboxStore;
  return { outbox, limits };
}

describe("sentFoldStep", () => {
  it("folds again at once while a fold moves a full limit, and waits its period after one that moved less", async () => {
    const { outbox, limits } = folding([10, 10, 3, 0]);
    const step = sentFoldStep(outbox, { limit: 10, everyMs: 1_000 });
    expect(await step.run(new AbortController().signal)).toEqual({ after: 0, wake: [] });
    expect(await step.run(new AbortController().signal)).toEqual({ after: 0, wake: [] });
    expect(await step.run(new AbortController().signal)).toEqual({ after: 1_000, wake: [] });
    expect(await step.run(new AbortController().signal)).toEqual({ after: 1_000, wake: [] });
    expect(limits).toEqual([10, 10, 10, 10]);
  });

  it("lets a store's failure out to the router's loop (which logs it and runs the step again)", async () => {
    const outbox = { foldSent: async () => Promise.reject(new Error("down")) } as unknown as OutboxStore;
    await expect(sentFoldStep(outbox).run(new AbortController().signal)).rejects.toThrow("down");
  });
});
