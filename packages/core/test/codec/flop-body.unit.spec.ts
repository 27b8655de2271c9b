import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { msg } from "./sis-fixtures.js";

const bodyOf = (raw: string) => {
  const r = decodeMessage(raw);
  if (!r.ok) throw new Error(`expected ok, got ${r.errorClass}: ${r.reason}`);
  return r.message.body;
};

const block = (styp: string, inner: string) => msg("FLOP", styp, `<FLOP><FLID>1</FLID>${inner}</FLOP>`);

describe("FLOP blocks: stand-row elements (PSHT, TIPT)", () => {
  it("decodes PSHT@PSHN{PSTM, PSID, PUST} and TIPT*{TRTM, TRST} beside the flight record, absent vs empty kept", () => {
    const inner =
      '<PSHT PSHN = "1">\n\t<PSTM>05mar261555</PSTM><PSID/><PUST> 210 </PUST></PSHT>' +
      "<TIPT><TRTM>05MAR261557</TRTM><TRST>210</TRST></TIPT><TIPT><TRST>305</TRST><XTRA>ignored</XTRA></TIPT><STND>210</STND>";
    expect(bodyOf(block("PSHT", inner))).toStrictEqual({
      kind: "flop",
      styp: "PSHT",
      blocks: [
        {
          flid: "1",
          scalars: { STND: "210" },
          collections: {},
          standRows: {
            PSHT: [{ values: { PUST: "210", PSTM: "2026-03-05T15:55", PSID: null, "@PSHN": "1" } }],
            TIPT: [{ values: { TRST: "210", TRTM: "2026-03-05T15:57" } }, { values: { TRST: "305" } }],
          },
        },
      ],
    });
  });

  it("a block without them has no standRows property (the shape every other subtype decodes to)", () => {
    expect(bodyOf(block("ESTT", "<ESTT>05MAR261452</ESTT>"))).toStrictEqual({
      kind: "flop",
      styp: "ESTT",
      blocks: [{ flid: "1", scalars: { ESTT: "2026-03-05T14:52" }, collections: {} }],
    });
  });

  it.each([
    ["<PSHT><PSTM>soon</PSTM><PUST>210</PUST></PSHT>", "PROTOCOL", /PSHT PSTM "soon" is not a body time/],
    ["<TIPT><TRTM>05MAR261557</TRTM><TRTM>05MAR261558</TRTM><TRST>210</TRST></TIPT>", "PROTOCOL", /TRTM occurs more than once/],
    ["<PSHT><PUST><X/></PUST></PSHT>", "CODEC_ERROR", /PUST holds child elements/],
  ])("%s → %s", (inner, errorClass, reason) => {
    const r = decodeMessage(block("PSHT", inner));
    expect(r).toMatchObject({ ok: false, errorClass, meta: { type: "FLOP", styp: "PSHT" } });
    expect(r.ok ? "" : r.reason).toMatch(reason);
  });
});
