/**
 * Bytes are never changed at ingress (issue 19): a body is UTF-8 as sent, or it is refused —
 * 415 for another declared charset, 400 for bytes that are not UTF-8 — and nothing is appended.
 */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "@msgx/core";
import type { HttpContext } from "../src/http/http-context.js";
import { createHttpServer } from "../src/http/http-server.js";
import { BodyEncodingError, bodyText } from "../src/http/body-text.js";

const CAFE_LATIN1 = Buffer.from("<MSG>caf\xe9 cr\xe8me</MSG>", "latin1");
const CAFE_UTF8 = Buffer.from("<MSG>café crème 🛫</MSG>", "utf8");

describe("bodyText", () => {
  it("reads UTF-8 as sent, with or without a declared utf-8 charset, a BOM kept", () => {
    expect(bodyText(CAFE_UTF8, "application/xml")).toBe("<MSG>café crème 🛫</MSG>");
    expect(bodyText(CAFE_UTF8, 'text/xml; charset="UTF-8"')).toBe("<MSG>café crème 🛫</MSG>");
    expect(bodyText(Buffer.from("\ufeff<MSG/>", "utf8"), undefined)).toBe("\ufeff<MSG/>");
  });

  it("refuses bytes that are not UTF-8 with 400, naming the offset, never replacing them", () => {
    const e = (() => {
      try {
        bodyText(CAFE_LATIN1, "application/xml");
      } catch (error) {
        return error;
      }
    })();
    expect(e).toBeInstanceOf(BodyEncodingError);
    expect(e).toMatchObject({ status: 400, message: "body is not valid UTF-8 (first bad byte at offset 8)" });
  });

  it("refuses any other declared charset with 415", () => {
    for (const ct of ["text/xml; charset=iso-8859-1", "application/xml;charset=GBK", "text/plain; charset=utf-16"]) {
      expect(() => bodyText(CAFE_UTF8, ct), ct).toThrow(expect.objectContaining({ status: 415 }));
    }
  });
});

describe("POST /cminmsgs/send", () => {
  const received: string[] = [];
  let url = "";
  const server = createHttpServer({
    logger: silentLogger,
    token: undefined,
    maxBodyBytes: 1024,
    checks: [],
    receive: async (raw: string) => received.push(raw),
  } as unknown as HttpContext);
  beforeAll(async () => {
    await server.listen({ port: 0, host: "127.0.0.1" });
    url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}/cminmsgs/send`;
  });
  afterAll(() => server.close());

  const post = async (body: Buffer, contentType: string) => {
    const res = await fetch(url, { method: "POST", body, headers: { "content-type": contentType } });
    return { status: res.status, text: await res.text() };
  };

  it("appends UTF-8 exactly as sent and refuses the rest without appending", async () => {
    expect(await post(CAFE_UTF8, "application/xml; charset=utf-8")).toEqual({ status: 200, text: "1" });
    expect((await post(CAFE_LATIN1, "text/xml")).status).toBe(400);
    expect((await post(CAFE_LATIN1, "text/xml; charset=iso-8859-1")).status).toBe(415);
    expect(received).toEqual(["<MSG>café crème 🛫</MSG>"]);
  });

  it("refuses a NUL character with 400 naming its offset, without appending: XML allows none and PostgreSQL stores none", async () => {
    const before = received.length;
    expect(await post(Buffer.from("<MSG>a\u0000b</MSG>", "utf8"), "application/xml")).toEqual({
      status: 400,
      text: JSON.stringify({ error: "bad request", message: "body holds a NUL character at offset 6: no XML document can hold one" }),
    });
    expect(received).toHaveLength(before);
  });
});

describe("bodyText's offset of the first bad byte agrees with the platform's strict decoder", () => {
  it("on every prefix cut of mixed text, and on classic ill-formed sequences", () => {
    const cases = [
      Buffer.from([0xc0, 0x80]),
      Buffer.from([0x41, 0xed, 0xa0, 0x80]),
      Buffer.from([0x41, 0x42, 0xf4, 0x90, 0x80, 0x80]),
      Buffer.from([0xe2, 0x82]),
      Buffer.concat([CAFE_UTF8.subarray(0, 10), Buffer.from([0xff]), CAFE_UTF8]),
    ];
    for (const bytes of cases) {
      const offset = Number(/offset (\d+)/.exec((() => { try { bodyText(bytes, undefined); return ""; } catch (e) { return (e as Error).message; } })())?.[1]);
      // Everything before the offset decodes strictly; the offset itself starts the bad sequence.
      expect(new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(0, offset)), bytes.toString("hex")).toBeTypeOf("string");
      expect(() => new TextDecoder("utf-8", { fatal: true }).decode(bytes.subarray(offset)), bytes.toString("hex")).toThrow();
    }
  });
});
