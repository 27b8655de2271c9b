import { describe, expect, it } from "vitest";
import { HotStatements } from "../src/prepared-statements.js";

describe("HotStatements", () => {
  it("names a text from its second use on, the same name every time, a different name per text", () => {
    const hot = new HotStatements();
    expect(hot.nameOf("SELECT $1")).toBeUndefined();
    const name = hot.nameOf("SELECT $1");
    expect(name).toMatch(/^msgx_[0-9a-f]{24}$/);
    expect(hot.nameOf("SELECT $1")).toBe(name);
    hot.nameOf("SELECT $1 + 1");
    expect(hot.nameOf("SELECT $1 + 1")).not.toBe(name);
  });

  it("names at most maxNames texts; the rest run unnamed", () => {
    const hot = new HotStatements({ maxNames: 3, after: 1 });
    const names = Array.from({ length: 5 }, (_, i) => hot.nameOf(`SELECT ${i}, $1`));
    expect(names.filter((n) => n !== undefined)).toHaveLength(3);
    expect(names.slice(3)).toEqual([undefined, undefined]);
    expect(hot.nameOf("SELECT 0, $1")).toBe(names[0]);
  });

  it("never names a refused text again", () => {
    const hot = new HotStatements({ after: 1 });
    expect(hot.nameOf("SELECT * FROM t WHERE a = $1")).toBeDefined();
    hot.refuse("SELECT * FROM t WHERE a = $1");
    expect(hot.nameOf("SELECT * FROM t WHERE a = $1")).toBeUndefined();
    expect(hot.nameOf("SELECT * FROM t WHERE a = $1")).toBeUndefined();
    expect(hot.size).toBe(0);
  });
});
