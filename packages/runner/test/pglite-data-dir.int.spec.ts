import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { initPgliteDataDir } from "../src/embedded/pglite-data-dir.js";

const root = mkdtempSync(join(tmpdir(), "msgx-pglite-init-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("initPgliteDataDir", () => {
  it("creates the cluster in place and clears what a crashed first start left beside it; a second call changes nothing", async () => {
    const dir = join(root, "pglite");
    // A first start killed while its child was writing: a staging sibling of another process.
    mkdirSync(join(root, "pglite.init-999999"));
    writeFileSync(join(root, "pglite.init-999999", "half"), "x");
    await initPgliteDataDir(dir);
    expect(existsSync(join(dir, "PG_VERSION"))).toBe(true);
    expect(readdirSync(root).sort()).toEqual(["pglite"]);
    const before = readdirSync(dir).sort();
    await initPgliteDataDir(dir);
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(readdirSync(root)).toEqual(["pglite"]);
  }, 120_000);
});
