import { describe, expect, it } from "vitest";
import { InMemoryMailbox, ManualClock } from "@msgx/core/testing";
import { ShadowMailbox } from "@msgx/adapters-mysql";

describe("ShadowMailbox", () => {
  it("reads through, writes nothing, answers backfill as alreadyDone, refuses append", async () => {
    const inner = new InMemoryMailbox(new ManualClock());
    const id = inner.insert("<MSG/>");
    const shadow = new ShadowMailbox(inner);
    expect(await shadow.scan(0, 10)).toEqual(await inner.scan(0, 10));
    expect(await shadow.readRaw([id])).toEqual(await inner.readRaw([id]));
    expect(await shadow.backfill([{ msgId: id, processedAt: 1, meta: null }, { msgId: id, processedAt: 2, meta: null }])).toEqual({
      written: [],
      alreadyDone: [id],
      defects: [],
    });
    expect(inner.rows.get(id)?.processedAt).toBeNull();
    await expect(shadow.append("<MSG/>")).rejects.toMatchObject({ name: "MsgxError", kind: "CONFIG", retriable: false });
    expect(inner.rows.size).toBe(1);
  });
});
