import { write, writeSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

/** How long a busy (EAGAIN) destination is given before the next try. */
const BUSY_RETRY_MS = 10;
/** Lines held for a destination that does not read; past this they are dropped, not kept in memory. */
const MAX_PENDING_BYTES = 8 * 1024 * 1024;

/** The destinations to write out at exit: one `exit` listener for all, none kept alive by it. */
const atExit = new Set<WeakRef<LogDestination>>();
let exitListening = false;

/**
 * Where the runner's JSON log lines go (fd 1 by default): written asynchronously, in order, and
 * never allowed to hold the process. pino's own destination (sonic-boom) flushes synchronously at
 * exit and retries a broken pipe forever, so a runner whose `| head`, `| jq` or log shipper had
 * died could not stop (issue 31). Here:
 * - a closed or broken destination (EPIPE, or any error but EAGAIN) ends logging for good — the
 *   lines are dropped, the runner keeps running — and `onBroken` is told once;
 * - a destination that does not read (EAGAIN, a full pipe) is retried, holding at most 8 MiB;
 * - at exit the main thread writes what is left once, synchronously, and gives up on the first
 *   error or a write still in flight. (A blocking pipe whose reader is alive but never reads still
 *   holds a write, and so the exit, in the kernel: docs/operations.md says so.)
 */
export class LogDestination {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private writing = false;
  private broken = false;
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly fd: number,
    private readonly onBroken: (error: NodeJS.ErrnoException) => void = () => undefined,
  ) {
    if (!isMainThread) return;
    atExit.add(new WeakRef(this));
    if (!exitListening) {
      exitListening = true;
      process.once("exit", () => atExit.forEach((ref) => ref.deref()?.flushAtExit()));
    }
  }

  /** pino's stream interface: one or more whole lines. */
  write(chunk: string): boolean {
    if (this.broken) return true;
    const bytes = Buffer.from(chunk, "utf8");
    if (this.pendingBytes + bytes.length > MAX_PENDING_BYTES) return true;
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (!this.writing) this.writeNext();
    return true;
  }

  /** Calls `done` once everything written so far is out, or the destination broke. */
  flush(done?: (error?: Error) => void): void {
    if (!done) return;
    if (this.broken || (!this.writing && this.pending.length === 0)) return done();
    this.waiters.push(done);
  }

  private writeNext(): void {
    if (this.broken || this.pending.length === 0) {
      this.writing = false;
      this.waiters.splice(0).forEach((done) => done());
      return;
    }
    this.writing = true;
    const buffer = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    write(this.fd, buffer, 0, buffer.length, null, (error, written) => {
      if (error && error.code !== "EAGAIN") return this.fail(error);
      const rest = error ? buffer : buffer.subarray(written);
      this.pendingBytes -= buffer.length - rest.length;
      if (rest.length > 0) this.pending.unshift(rest);
      if (error) setTimeout(() => this.writeNext(), BUSY_RETRY_MS).unref();
      else this.writeNext();
    });
  }

  private fail(error: NodeJS.ErrnoException): void {
    this.broken = true;
    this.pending = [];
    this.pendingBytes = 0;
    this.writeNext();
    this.onBroken(error);
  }

  /** Writes what is left once, synchronously; called at exit only. */
  flushAtExit(): void {
    if (this.broken || this.writing || this.pending.length === 0) return;
    try {
      writeSync(this.fd, Buffer.concat(this.pending));
    } catch {
      // Exit does not wait for a log line: a full, closed or broken destination loses the tail.
    }
    this.pending = [];
  }
}
