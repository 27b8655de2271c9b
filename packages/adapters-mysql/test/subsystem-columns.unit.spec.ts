import { describe, expect } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { subsystemDefect } from "@msgx/core/testing";
import { CMINMSGS_SUBSYSTEM_COLUMNS, subsystemValues } from "@msgx/adapters-mysql";

const text = fc.string({ unit: fc.constantFrom("A", "B", "Z", "0", "9"), minLength: 1, maxLength: 6 });
const meta = fc.record({
  sndr: text,
  seqn: fc.integer({ min: 0, max: 9_999_999 }),
  dttm: fc.constant("20260305020000"),
  type: text,
  styp: text,
});

describe("subsystem columns", () => {
  test.prop([meta])("refuses exactly what the in-memory mailbox refuses, with the same reason", (m) => {
    const fit = subsystemValues(m, CMINMSGS_SUBSYSTEM_COLUMNS);
    const defect = subsystemDefect(m);
    expect(fit.ok ? null : fit.reason).toBe(defect);
  });
});
