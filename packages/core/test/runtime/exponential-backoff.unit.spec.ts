import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { fc, test as fcTest } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { exponentialBackoff } from "../../src/runtime/exponential-backoff.js";

const repo = fileURLToPath(new URL("../../../../", import.meta.url));

describe("exponentialBackoff", () => {
  it("waits initial · multiplier^(failure − 1), capped", () => {
    const b = { initialMs: 1_000, maxMs: 60_000 };
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => exponentialBackoff(b, n))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
    expect([1, 2, 3].map((n) => exponentialBackoff({ ...b, multiplier: 3 }, n))).toEqual([1_000, 3_000, 9_000]);
  });

  it("counts a failure number of 0 or less as the first, and a zero initial wait as no wait", () => {
    expect(exponentialBackoff({ initialMs: 500, maxMs: 10_000 }, 0)).toBe(500);
    expect(exponentialBackoff({ initialMs: 500, maxMs: 10_000 }, -3)).toBe(500);
    expect(exponentialBackoff({ initialMs: 0, maxMs: 10_000 }, 5_000)).toBe(0);
  });

  fcTest.prop([fc.integer({ min: 0, max: 60_000 }), fc.integer({ min: 0, max: 3_600_000 }), fc.integer({ min: -5, max: 100_000 })])(
    "is finite, never above the cap, and never shrinks as failures grow",
    (initialMs, maxMs, failure) => {
      const b = { initialMs, maxMs };
      const wait = exponentialBackoff(b, failure);
      expect(Number.isFinite(wait)).toBe(true);
      expect(wait).toBeLessThanOrEqual(Math.max(maxMs, 0));
      expect(exponentialBackoff(b, failure + 1)).toBeGreaterThanOrEqual(wait);
    },
  );
});

/** Every .ts file under the packages' src folders. */
const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? (e.name === "node_modules" ? [] : sources(join(dir, e.name))) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));

describe("one backoff rule (STYLE.md 12)", () => {
  it("no source file but exponential-backoff.ts raises a number to a power of failures", () => {
    const packages = readdirSync(join(repo, "packages")).filter((p) => p !== "node_modules");
    const files = packages.flatMap((p) => {
      try {
        return sources(join(repo, "packages", p, "src"));
      } catch {
        return [];
      }
    });
    expect(files.length).toBeGreaterThan(100);
    const powers = files
      .filter((f) => !f.endsWith("runtime/exponential-backoff.ts"))
      .flatMap((f) => readFileSync(f, "utf8").split("\n").map((line, i) => [f, i + 1, line] as const))
      .filter(([, , line]) => /\*\*\s*(\(|[a-z])|Math\.pow\(/.test(line.replace(/^\s*(\/\*\*?|\*|\/\/).*$|\s\/\/.*$/, "")))
      .map(([f, n, line]) => `${relative(repo, f)}:${n}: ${line.trim()}`);
    expect(powers).toEqual([]);
  });
});
