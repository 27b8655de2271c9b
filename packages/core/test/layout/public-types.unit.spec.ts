import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { packageEntries, publicAnys, workspacePackages } from "./public-any.js";

const root = fileURLToPath(new URL("../../../../", import.meta.url));

/** A file of one of our packages' sources (not a test, not a declaration file of a dependency). */
const isOurs = (file: string): boolean => /[\\/]packages[\\/][^\\/]+[\\/]src[\\/]/.test(file) && !file.endsWith(".d.ts");

describe("public types", () => {
  const scratch = mkdtempSync(join(tmpdir(), "msgx-public-types-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("finds an any in an exported signature, in a type it references, and in an inferred return; not in bodies or private members", () => {
    const dir = join(scratch, "packages", "demo", "src");
    const file = (name: string, text: string): string => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };
    ts.sys.createDirectory(join(scratch, "packages"));
    ts.sys.createDirectory(join(scratch, "packages", "demo"));
    ts.sys.createDirectory(dir);
    file("hidden.ts", "export interface Hidden { readonly loose: any }\n");
    const index = file(
      "index.ts",
      [
        'import type { Hidden } from "./hidden.js";',
        "export function takes(x: any): void { void x; }",
        "export function clean(x: unknown): string { const y: any = x; return String(y); }",
        "export const uses = (h: Hidden): number => (h.loose ? 1 : 0);",
        "export class Box<T = any> { #inner: any = 1; private readonly other: any = 2; read() { return JSON.parse('1'); } }",
      ].join("\n"),
    );
    const program = ts.createProgram([index], { strict: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true, lib: ["lib.es2022.d.ts"], types: [] });
    const found = publicAnys(program, [index], isOurs, scratch).map((f) => `${f.file.split(sep).join("/")}:${f.line}`);
    expect(found.sort()).toEqual(["packages/demo/src/hidden.ts:1", "packages/demo/src/index.ts:2", "packages/demo/src/index.ts:5", "packages/demo/src/index.ts:5"]);
  });

  it("no package's public declarations hold `any` (each subpath it exports, from the sources)", () => {
    const entries = workspacePackages(root).flatMap(packageEntries);
    const names = entries.map((e) => e.slice(root.length).split(sep).join("/"));
    for (const pkg of ["core", "adapters-pg", "adapters-mysql", "adapters-kafka", "runner"]) expect(names).toContain(`packages/${pkg}/src/index.ts`);
    // The root tsconfig maps every @msgx/* name to its sources, as the typecheck does.
    const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d: ts.Diagnostic) => expect.fail(String(d.messageText)) };
    const config = ts.getParsedCommandLineOfConfigFile(join(root, "tsconfig.json"), {}, host);
    const program = ts.createProgram(entries, { ...config!.options, noEmit: true });
    const found = publicAnys(program, entries, isOurs, root).map((f) => `${f.file}:${f.line} (${f.via}): ${f.text}`);
    expect(found).toEqual([]);
  });
});
