import { describe, expect, it } from "vitest";
import { AppendedRows } from "../src/appended-rows.js";

describe("AppendedRows", () => {
  it("gives the held rows from afterId + 1 as far as their ids run consecutively, pending, with the instant each was held at", () => {
    const rows = new AppendedRows(100);
    for (const id of [11, 12, 13, 15]) rows.remember(id, id * 1_000);
    expect(rows.scan(10, 50)).toEqual([11, 12, 13].map((id) => ({ msgId: id, receivedAt: id * 1_000, pending: true })));
    // 14 is not held (another writer's row, an append in flight): the caller reads the table.
    expect(rows.scan(13, 50)).toBeUndefined();
    expect(rows.scan(14, 50)?.map((r) => r.msgId)).toEqual([15]);
  });

  it("answers at most limit rows, and nothing when afterId + 1 is not held", () => {
    const rows = new AppendedRows(100);
    for (let id = 1; id <= 5; id++) rows.remember(id, 0);
    expect(rows.scan(0, 2)?.map((r) => r.msgId)).toEqual([1, 2]);
    expect(rows.scan(2, 10)?.map((r) => r.msgId)).toEqual([3, 4, 5]);
    expect(rows.scan(7, 10)).toBeUndefined();
  });

  it("forgets the ids at or below a scan's afterId, and the oldest beyond maxRows", () => {
    const rows = new AppendedRows(3);
    for (let id = 1; id <= 5; id++) rows.remember(id, 0);
    expect(rows.size).toBe(3);
    expect(rows.scan(0, 10)).toBeUndefined();
    expect(rows.scan(2, 10)?.map((r) => r.msgId)).toEqual([3, 4, 5]);
    rows.scan(4, 10);
    expect(rows.size).toBe(1);
  });

  it("holds nothing with maxRows 0", () => {
    const rows = new AppendedRows(0);
    rows.remember(1, 0);
    expect(rows.size).toBe(0);
    expect(rows.scan(0, 10)).toBeUndefined();
  });
});
