import { InMemoryPipelineStore, ManualClock } from "@msgx/core/fakes";
import { describe, expect, it } from "vitest";
import { fencedTaskStore } from "../src/fenced-task-store.js";
import { InMemoryTaskStore } from "../src/in-memory-task-store.js";
import { sampleNewTask } from "../src/task-store-contract-fixtures.js";
import { TaskService } from "../src/task-service.js";

describe("fencedTaskStore", () => {
  const world = () => {
    const clock = new ManualClock();
    const pipeline = new InMemoryPipelineStore(clock);
    return { clock, pipeline, store: new InMemoryTaskStore(clock, pipeline) };
  };

  it("a service over a leader's fenced store writes while it leads and is FENCED after a takeover, writing nothing", async () => {
    const { clock, pipeline, store } = world();
    pipeline.tables.epoch = 1;
    const leader = new TaskService({ store: fencedTaskStore(store, 1), clock });
    expect((await leader.create(sampleNewTask("T-1"))).created).toBe(true);
    pipeline.tables.epoch = 2;
    await expect(leader.create(sampleNewTask("T-2"))).rejects.toMatchObject({ kind: "FENCED" });
    await expect(leader.markDispatched("T-1", "ACS-1")).rejects.toMatchObject({ kind: "FENCED" });
    expect(await store.get("T-2")).toBeUndefined();
    expect((await store.get("T-1"))?.externalTaskNo).toBeNull();
    // Reads are not fenced: a deposed leader may still answer what it can see.
    expect((await fencedTaskStore(store, 1).get("T-1"))?.taskId).toBe("T-1");
  });

  it("without a fence it is the store itself", () => {
    const { store } = world();
    expect(fencedTaskStore(store, undefined)).toBe(store);
  });
});
