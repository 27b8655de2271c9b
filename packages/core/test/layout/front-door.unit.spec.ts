/**
 * Core's front door (issue 34): the main entry holds what an integrator of the flight exchange
 * uses — at most 350 names. What only tests use is in `@msgx/core/testing`; internals are not
 * exported; task and reliable-message names live in their own packages, never in core.
 */
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const MAX_MAIN_ENTRY_NAMES = 350;
const entry = (name: string): string => fileURLToPath(new URL(`../../src/${name}.ts`, import.meta.url));

/** The names an entry exports (values and types), as the TypeScript checker sees its module. */
function exportedNames(file: string): string[] {
  const program = ts.createProgram([file], { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, types: [] });
  const checker = program.getTypeChecker();
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!);
  return module ? checker.getExportsOfModule(module).map((s) => s.getName()) : [];
}

describe("@msgx/core's main entry", () => {
  const names = exportedNames(entry("index"));

  it(`exports at most ${MAX_MAIN_ENTRY_NAMES} names`, () => {
    expect(names.length).toBeGreaterThan(100); // the count read the entry, not an empty module
    expect(names.length).toBeLessThanOrEqual(MAX_MAIN_ENTRY_NAMES);
  });

  it("exports no task or reliable-message name (they are @msgx/tasks and @msgx/reliable)", () => {
    expect(names.filter((n) => /^(Task|Reliable|InMemoryTask|InMemoryReliable|describeTask|describeReliable)|ConsumeLog/.test(n))).toEqual([]);
  });
});
