import { describe, expect, it } from "vitest";
import { EXIT, EXIT_CODES_HELP } from "../src/commands/exit-codes.js";

describe("exit codes", () => {
  it("are distinct and each one is listed in the --help text", () => {
    const codes = Object.values(EXIT);
    expect(new Set(codes).size).toBe(codes.length);
    expect(EXIT).toEqual({ ok: 0, failure: 1, config: 2, leadershipLost: 3 });
    for (const code of codes) expect(EXIT_CODES_HELP).toMatch(new RegExp(`^  ${code}  \\S`, "m"));
  });
});
