import { describe, expect, it } from "vitest";
import { fc, test } from "@fast-check/vitest";
import { CMINMSGS_SUBSYSTEM_COLUMNS, subsystemValues } from "../../src/ports/subsystem-columns.js";

const meta = { sndr: "AODB", seqn: 480211, dttm: "20260305020000", type: "SCHD", styp: "DNLD" };
const fit = (m: Partial<typeof meta>) => subsystemValues({ ...meta, ...m }, CMINMSGS_SUBSYSTEM_COLUMNS);

describe("the SUBSYSTEM_* column rule (one rule for every mailbox)", () => {
  it("writes the five values, the DTTM as MySQL's DATETIME text", () => {
    expect(fit({})).toEqual({ ok: true, values: { name: "AODB", sequence: 480211, dateSent: "2026-03-05 02:00:00", type: "SCHD", subtype: "DNLD" } });
  });

  it("counts characters, not UTF-16 units, as VARCHAR does", () => {
    expect(fit({ sndr: "😀😀😀😀" }).ok).toBe(true); // four characters, eight UTF-16 units
    expect(fit({ sndr: "😀😀😀😀😀" })).toEqual({ ok: false, reason: "SUBSYSTEM_NAME too long: 😀😀😀😀😀" });
  });

  it("refuses a sequence outside the signed MEDIUMINT range, at both ends", () => {
    expect(fit({ seqn: 8_388_607 }).ok && fit({ seqn: -8_388_608 }).ok).toBe(true);
    expect(fit({ seqn: 8_388_608 })).toEqual({ ok: false, reason: "SUBSYSTEM_SEQUENCE out of range: 8388608" });
    expect(fit({ seqn: -8_388_609 })).toEqual({ ok: false, reason: "SUBSYSTEM_SEQUENCE out of range: -8388609" });
  });

  it("refuses a DTTM that is not a real date-time", () => {
    expect(fit({ dttm: "20260229000000" })).toEqual({ ok: false, reason: "SUBSYSTEM_DATE_SENT not a date-time: 20260229000000" });
    expect(fit({ dttm: "2026030502" }).ok).toBe(false);
  });

  const text = fc.string({ unit: fc.constantFrom("A", "Z", "0", "é", "😀"), minLength: 1, maxLength: 6 });
  test.prop([fc.record({ sndr: text, type: text, styp: text, seqn: fc.integer({ min: -9_999_999, max: 9_999_999 }) })])(
    "fits exactly when every value is within its column",
    (m) => {
      const within = [m.sndr, m.type, m.styp].every((v) => [...v].length <= 4) && m.seqn >= -8_388_608 && m.seqn <= 8_388_607;
      expect(fit(m).ok).toBe(within);
    },
  );
});
