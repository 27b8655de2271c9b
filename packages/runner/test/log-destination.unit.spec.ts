import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LogDestination } from "../src/log-destination.js";

const dir = mkdtempSync(join(tmpdir(), "msgx-log-destination-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flushed = (d: LogDestination) => new Promise<void>((resolve) => d.flush(() => resolve()));

describe("LogDestination", () => {
  it("writes every line once, in order, lines written while a write is in flight included", async () => {
    const file = join(dir, "lines.log");
    const fd = openSync(file, "w");
    const destination = new LogDestination(fd);
    const lines = Array.from({ length: 2_000 }, (_, i) => `{"n":${i}}\n`);
    for (const [i, line] of lines.entries()) {
      destination.write(line);
      if (i % 100 === 0) await new Promise((r) => setImmediate(r));
    }
    await flushed(destination);
    closeSync(fd);
    expect(readFileSync(file, "utf8")).toBe(lines.join(""));
  });

  it("a destination that fails is given up: told once, flushed at once, later lines dropped", async () => {
    // A descriptor no process opens this high (a closed one could be reused by the time of the write).
    const told: string[] = [];
    const destination = new LogDestination(1 << 20, (e) => told.push(e.code ?? e.message));
    destination.write("a\n");
    destination.write("b\n");
    await flushed(destination);
    destination.write("c\n");
    await flushed(destination);
    expect(told).toEqual(["EBADF"]);
  });
});
