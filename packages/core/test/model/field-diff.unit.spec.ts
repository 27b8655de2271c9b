import { describe, expect, it } from "vitest";
import { fieldDiff } from "../../src/model/field-diff.js";

describe("fieldDiff", () => {
  it("lists the changed, added and removed fields by dotted path, arrays whole", () => {
    const before = { flid: "1", departure: { gate: "A1", stand: "S1" }, codeshares: ["X1"], remark: "old" };
    const after = { flid: "1", departure: { gate: "B7", stand: "S1" }, codeshares: ["X1", "X2"], status: "BRD" };
    expect(fieldDiff(before, after)).toEqual([
      { field: "departure.gate", before: "A1", after: "B7" },
      { field: "codeshares", before: ["X1"], after: ["X1", "X2"] },
      { field: "status", after: "BRD" },
      { field: "remark", before: "old" },
    ]);
  });

  it("finds nothing between equal values, and everything against a first version or a tombstone", () => {
    const v = { a: 1, b: { c: null } };
    expect(fieldDiff(v, structuredClone(v))).toEqual([]);
    expect(fieldDiff(null, v)).toEqual([{ field: "a", after: 1 }, { field: "b.c", after: null }]);
    expect(fieldDiff(v, null)).toEqual([{ field: "a", before: 1 }, { field: "b.c", before: null }]);
  });

  it("reports a field whose type changed between object and scalar as one change", () => {
    expect(fieldDiff({ a: { x: 1 } }, { a: 5 })).toEqual([{ field: "a", before: { x: 1 }, after: 5 }]);
  });
});
