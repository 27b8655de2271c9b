/**
 * The runner works over ports only: no source file under packages/runner/src imports the SQL
 * driver or names its handle type, so every store it uses comes from `createPgStores()` /
 * `createPgliteStores()` and has a fake.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../src", import.meta.url));

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.[cm]?ts$/.test(e.name) ? [join(dir, e.name)] : []));

/** The lines of `text` that import kysely or name its `Kysely` type. */
export const driverLeaks = (text: string): string[] => text.split("\n").filter((line) => /["']kysely["']|\bKysely\b/.test(line));

describe("runner layout", () => {
  it("finds a driver import or the Kysely type when one is there", () => {
    expect(driverLeaks('import type { Kysely } from "kysely";\nconst x = 1;')).toHaveLength(1);
    expect(driverLeaks("readonly db: Kysely<any>;")).toHaveLength(1);
    expect(driverLeaks('import { sql } from "kysely";')).toHaveLength(1);
    expect(driverLeaks('import { createPgStores } from "@msgx/adapters-pg";')).toEqual([]);
  });

  it("no file under packages/runner/src imports kysely or names Kysely", () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(20);
    const leaks = files.flatMap((f) => driverLeaks(readFileSync(f, "utf8")).map((line) => `${f.slice(SRC.length + 1)}: ${line.trim()}`));
    expect(leaks).toEqual([]);
  });
});
