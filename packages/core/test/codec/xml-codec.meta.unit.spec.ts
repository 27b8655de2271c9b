import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { fixture } from "./sis-fixtures.js";

const FIELDS: Record<string, string> = { SNDR: "AODB", SEQN: "42", DTTM: "20260305020000", TYPE: "FLOP", STYP: "ESTT" };
const BODY = "<FLOP><FLID>1</FLID></FLOP>";

const withMeta = (fields: Record<string, string | undefined>, extra = ""): string => {
  const meta = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<${k}>${v}</${k}>`)
    .join("");
  return `<MSG><META>${meta}${extra}</META>${BODY}</MSG>`;
};

describe("META", () => {
  it("decodes the five fields, trimmed", () => {
    const r = decodeMessage(withMeta({ ...FIELDS, SNDR: " AODB\n" }));
    expect(r.ok && r.message.meta).toStrictEqual({ sndr: "AODB", seqn: 42, dttm: "20260305020000", type: "FLOP", styp: "ESTT" });
  });

  it("takes its children in any order and ignores unknown ones", () => {
    const r = decodeMessage(fixture("07-flop-estt-two-blocks.xml"));
    expect(r.ok && r.message.meta).toStrictEqual({ sndr: "AODB", seqn: 17, dttm: "20260305131500", type: "FLOP", styp: "ESTT" });
  });

  it.each(Object.keys(FIELDS))("missing %s → MALFORMED without meta", (field) => {
    const r = decodeMessage(withMeta({ ...FIELDS, [field]: undefined }));
    expect(r).toMatchObject({ ok: false, errorClass: "MALFORMED", meta: null });
    expect(!r.ok && r.reason).toContain(field);
  });

  it.each([
    ["SNDR", ""],
    ["SNDR", "aodb"],
    ["SNDR", "AODBX"],
    ["SNDR", "AO-B"],
    ["SEQN", "-1"],
    ["SEQN", "1.5"],
    ["SEQN", ""],
    ["SEQN", "1e3"],
    ["DTTM", "2026030502000"],
    ["DTTM", "20260230020000"],
    ["DTTM", "20260305240000"],
    ["DTTM", "20260305026000"],
    ["DTTM", "20260305020060"],
    ["DTTM", "20261305020000"],
    ["TYPE", "SC"],
    ["TYPE", "SCHDX"],
    ["TYPE", "SC1"],
    ["STYP", ""],
    ["STYP", "NONEX"],
    ["STYP", "DN1"],
  ])("invalid %s %j → MALFORMED", (field, value) => {
    const r = decodeMessage(withMeta({ ...FIELDS, [field]: value }));
    expect(r).toMatchObject({ ok: false, errorClass: "MALFORMED", meta: null });
    expect(!r.ok && r.reason).toContain(field);
  });

  it("accepts the edges of the domains", () => {
    const r = decodeMessage(withMeta({ SNDR: "A1", SEQN: "0", DTTM: "20240229235959", TYPE: "RQFD", STYP: "NONE" }));
    expect(r.ok && r.message.meta).toStrictEqual({ sndr: "A1", seqn: 0, dttm: "20240229235959", type: "RQFD", styp: "NONE" });
  });

  it("refuses a field that repeats, a field holding elements, a missing or repeated META", () => {
    expect(decodeMessage(withMeta(FIELDS, "<SNDR>AODB</SNDR>"))).toMatchObject({ errorClass: "MALFORMED" });
    expect(decodeMessage(withMeta({ ...FIELDS, SNDR: "<X/>AODB" }))).toMatchObject({ errorClass: "MALFORMED" });
    expect(decodeMessage(`<MSG>${BODY}</MSG>`)).toMatchObject({ errorClass: "MALFORMED", reason: "META missing" });
    expect(decodeMessage(`<MSG><META/>${BODY}</MSG>`)).toMatchObject({ errorClass: "MALFORMED" });
    const twice = withMeta(FIELDS).replace("</META>", "</META><META/>");
    expect(decodeMessage(twice)).toMatchObject({ errorClass: "MALFORMED", reason: "more than one META" });
  });

  it("refuses a root other than MSG", () => {
    const r = decodeMessage(withMeta(FIELDS).replace(/MSG>/g, "MSGX>"));
    expect(r).toMatchObject({ ok: false, errorClass: "MALFORMED", meta: null });
    expect(!r.ok && r.reason).toContain("MSGX");
  });
});
