import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from "node:fs";
import { join } from "node:path";
import { MsgxError } from "@msgx/core";

/**
 * PGlite has no cross-process lock, so two runners on one data directory would corrupt it. The
 * runner holds `<dataDir>/msgx.lock` (its pid) for its whole life; a lock left by a dead process
 * is taken over, a live one refuses the start.
 */
export class DataDirLock {
  private constructor(readonly file: string) {}

  static acquire(dataDir: string): DataDirLock {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, "msgx.lock");
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const fd = openSync(file, "wx");
        writeSync(fd, String(process.pid));
        closeSync(fd);
        return new DataDirLock(file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
        const holder = Number(readFileSync(file, "utf8").trim());
        if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
          throw new MsgxError(
            "CONFIG",
            `data directory ${dataDir} is in use by process ${holder} (${file}), a running runner: ask it over HTTP with --url <the URL it printed, e.g. http://127.0.0.1:8080> ` +
              "(status, messages, replay and the other commands take --url), give another --data-dir, or stop that runner first",
          );
        }
        rmSync(file, { force: true });
      }
    }
    throw new MsgxError("CONFIG", `could not lock data directory ${dataDir}`);
  }

  release(): void {
    rmSync(this.file, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
