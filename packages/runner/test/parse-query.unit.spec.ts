import { describe, expect, it } from "vitest";
import { parseQuery } from "../src/http/http-server.js";

describe("parseQuery", () => {
  it("decodes as WHATWG URLs do: + is a space, a repeated name a list, bytes that are not UTF-8 U+FFFD", () => {
    expect({ ...parseQuery("a=1&a=2&a=3&b=x+y&c=%FF%FE&d=%00&e=") }).toEqual({ a: ["1", "2", "3"], b: "x y", c: "\uFFFD\uFFFD", d: "\u0000", e: "" });
  });

  it("keeps __proto__ a plain name, never the object's prototype", () => {
    const q = parseQuery("__proto__=x&constructor=y");
    expect(Object.getPrototypeOf(q)).toBeNull();
    expect(q["__proto__"]).toBe("x");
    expect(q["constructor"]).toBe("y");
  });
});
