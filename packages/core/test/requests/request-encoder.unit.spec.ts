import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { epochMsToDttm, dttmToEpochMs } from "../../src/requests/dttm-instant.js";
import { encodeRequest, encodeRqfd, encodeRqrd } from "../../src/requests/request-encoder.js";
import { requestEcho } from "../../src/requests/request-record.js";
import { RequestInputError } from "../../src/requests/request-input-error.js";

const meta = { sndr: "MSGX", seqn: 999_999, dttm: "20260305090000" };

describe("RQFD / RQRD encoders (WIRE.md 'Outbound requests')", () => {
  const root = '<?xml version="1.0" encoding="UTF-8"?>\n<MSG xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="unisysaodbsis.xsd">';

  it("RQFD/NONE asks for a schedule range, STDB and STDE as body times by default", () => {
    expect(encodeRqfd("2026-03-06T00:00", "2026-03-06T23:59", meta)).toBe(
      `${root}<META><SNDR>MSGX</SNDR><SEQN>999999</SEQN><DTTM>20260305090000</DTTM><TYPE>RQFD</TYPE><STYP>NONE</STYP></META>` +
        "<RQFD><STDB>06MAR260000</STDB><STDE>06MAR262359</STDE></RQFD></MSG>",
    );
  });

  it("writes STDB/STDE in the configured range format (dttm: yyyyMMddHHmmss) and the configured schema file", () => {
    const raw = encodeRqfd("2026-03-06T00:00", "2026-03-06T23:59", meta, { rangeTimeFormat: "dttm", schemaLocation: "other.xsd" });
    expect(raw).toContain("<RQFD><STDB>20260306000000</STDB><STDE>20260306235900</STDE></RQFD>");
    expect(raw).toContain('xsi:noNamespaceSchemaLocation="other.xsd"');
    expect(() => encodeRqfd("2026-02-30T00:00", "2026-03-06T23:59", meta, { rangeTimeFormat: "dttm", schemaLocation: "x.xsd" })).toThrow(RequestInputError);
  });

  it("RQRD/<reftype> asks for one reference type in RTYP", () => {
    expect(encodeRqrd("ARPT", meta)).toBe(
      `${root}<META><SNDR>MSGX</SNDR><SEQN>999999</SEQN><DTTM>20260305090000</DTTM><TYPE>RQRD</TYPE><STYP>ARPT</STYP></META><RQRD><RTYP>ARPT</RTYP></RQRD></MSG>`,
    );
  });

  it("writes the XML declaration and the root's xsi attributes, as the upstream's client does", () => {
    const raw = encodeRqrd("REGN", meta);
    expect(raw.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(raw).toContain('xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"');
  });

  it("writes SEQN as six digits, zero-padded, and echoes it so", () => {
    for (const [seqn, text] of [[1, "000001"], [42, "000042"], [0, "000000"], [999_999, "999999"]] as const) {
      expect(encodeRqrd("REGN", { ...meta, seqn })).toContain(`<SEQN>${text}</SEQN>`);
      expect(requestEcho({ sndr: "MSGX", seqn }).SEQN).toBe(text);
    }
  });

  it("writes a valid SIS envelope: our own decoder reads the META back", () => {
    for (const raw of [encodeRequest({ kind: "RQFD", from: "2026-12-31T23:00", to: "2027-01-01T01:00" }, meta), encodeRequest({ kind: "RQRD", rtype: "REGN" }, meta)]) {
      const d = decodeMessage(raw);
      expect(d.ok && d.message.meta).toMatchObject({ sndr: "MSGX", seqn: 999_999, dttm: "20260305090000" });
    }
  });

  it("refuses ranges and types it cannot write", () => {
    const bad = [
      { kind: "RQFD", from: "2026-03-06T00:00", to: "2026-03-05T00:00" },
      { kind: "RQFD", from: "2026-02-30T00:00", to: "2026-03-05T00:00" },
      { kind: "RQFD", from: "1999-12-31T00:00", to: "2026-03-05T00:00" },
      { kind: "RQFD", from: "2026-03-06 00:00", to: "2026-03-07T00:00" },
      { kind: "RQRD", rtype: "arpt" },
      { kind: "RQRD", rtype: "ARPTX" },
      { kind: "RQRD", rtype: "<X>" },
    ] as const;
    for (const p of bad) expect(() => encodeRequest(p, meta), JSON.stringify(p)).toThrow(RequestInputError);
  });

  it("DTTM of our requests is airport local at the configured offset, the inverse of reading one", () => {
    const at = Date.UTC(2026, 2, 4, 16, 30, 5, 999);
    expect(epochMsToDttm(at, 480)).toBe("20260305003005");
    expect(epochMsToDttm(at, 0)).toBe("20260304163005");
    expect(dttmToEpochMs(epochMsToDttm(at, 480), 480)).toBe(at - 999);
  });
});
