/**
 * The built `@msgx/core` entries as a consumer loads them: `.`, `./fakes` and `./testing` share one
 * copy of every class in each format (a fake's outage is an outage to the core's `isOutage`), the
 * fakes need no test framework, and `require("@msgx/core/testing")` says to use `import()`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const core = fileURLToPath(new URL("../../core/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "msgx-core-entries-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, "node_modules", "@msgx"), { recursive: true });
symlinkSync(core, join(dir, "node_modules", "@msgx", "core"), "dir");

const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: dir, encoding: "utf8" });

// A fake that is down throws the fakes entry's MsgxError; the index entry must recognise it.
const outageFrom = (fakes: string) =>
  `const plan = new ${fakes}.FaultPlan("db"); plan.setDown(true); let e; try { plan.check("read") } catch (x) { e = x }`;

describe("@msgx/core entries", () => {
  it("CommonJS: index and fakes share one MsgxError — a fake's outage is isOutage and instanceof", () => {
    const out = node(["-e", `const core = require("@msgx/core"); const fakes = require("@msgx/core/fakes"); ${outageFrom("fakes")}; console.log(JSON.stringify([core.isOutage(e), e instanceof core.MsgxError]))`]);
    expect(JSON.parse(out)).toEqual([true, true]);
  });

  it("ESM: index, fakes and testing share one MsgxError and one FaultPlan", () => {
    const out = node([
      "--input-type=module",
      "-e",
      `const core = await import("@msgx/core"); const fakes = await import("@msgx/core/fakes"); const testing = await import("@msgx/core/testing"); ${outageFrom("testing")}; console.log(JSON.stringify([core.isOutage(e), e instanceof core.MsgxError, testing.FaultPlan === fakes.FaultPlan, typeof testing.describeMailboxContract]))`,
    ]);
    expect(JSON.parse(out)).toEqual([true, true, true, "function"]);
  });

  it("require('@msgx/core/testing') throws an error that names import() and @msgx/core/fakes", () => {
    const out = node(["-e", `try { require("@msgx/core/testing"); console.log("loaded") } catch (e) { console.log(e.message) }`]);
    expect(out).toContain('use `await import("@msgx/core/testing")`');
    expect(out).toContain("`@msgx/core/fakes` for the in-memory fakes from CommonJS");
  });

  it("the fakes entry reaches no test framework in either format (its whole module graph)", () => {
    const framework = (specifiers: string[]) => specifiers.filter((s) => /^(vitest|fast-check|@fast-check)/.test(s));
    // The walk finds them where they are: the ESM testing entry imports both.
    expect(framework(bareImports(join(core, "dist/testing.js")))).toEqual(expect.arrayContaining(["vitest", "fast-check"]));
    for (const entry of ["dist/fakes.js", "dist/fakes.cjs"]) expect(framework(bareImports(join(core, entry))), entry).toEqual([]);
  });
});

/** Every bare specifier imported or required by a built file and the relative files it loads. */
function bareImports(file: string, seen = new Set<string>()): string[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\(\s*)["']([^"']+)["']/g)].map((m) => m[1] ?? "");
  return specifiers.flatMap((s) => (s.startsWith(".") ? bareImports(join(dirname(file), s), seen) : [s]));
}
