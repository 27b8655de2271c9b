import { ManualClock } from "@msgx/core/testing";
import { describe, expect, it } from "vitest";
import { cachedCounts, STORE_COUNT_CACHE_MS } from "../src/app/cached-counts.js";

describe("cachedCounts (the store gauges' read)", () => {
  it("reads the store once per 15 s of scrapes, and again after a failed read", async () => {
    const clock = new ManualClock();
    let reads = 0;
    let fail = false;
    const counts = cachedCounts(async () => {
      reads += 1;
      if (fail) throw new Error("store down");
      return { SENDING: reads };
    }, clock);
    expect(await counts()).toEqual({ SENDING: 1 });
    clock.advance(STORE_COUNT_CACHE_MS - 1);
    expect(await counts()).toEqual({ SENDING: 1 });
    expect(reads).toBe(1);
    clock.advance(1);
    fail = true;
    await expect(counts()).rejects.toThrow("store down");
    fail = false;
    expect(await counts()).toEqual({ SENDING: 3 });
    expect(reads).toBe(3);
  });
});
