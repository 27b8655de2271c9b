import { describe, expect, it } from "vitest";
import { InMemoryMailbox, InMemoryOutboundMailbox, ManualClock } from "@msgx/core/testing";
import { ShadowMailbox, ShadowOutboundMailbox } from "@msgx/adapters-mysql";

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

describe("ShadowOutboundMailbox", () => {
  it("finds through and refuses every insert", async () => {
    const inner = new InMemoryOutboundMailbox(new ManualClock());
    const id = await inner.insert("<MSG/>", "R1");
    const shadow = new ShadowOutboundMailbox(inner);
    expect(await shadow.find({ ids: [id] })).toEqual(await inner.find({ ids: [id] }));
    await expect(shadow.insert("<MSG/>", "R1")).rejects.toMatchObject({ name: "MsgxError", kind: "CONFIG" });
    expect(await inner.find({ ids: [id + 1] })).toEqual([]);
  });
});
