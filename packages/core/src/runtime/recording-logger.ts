import type { LogFields, Logger } from "./logger.js";

/** The `Logger` fake: keeps every line it was told, for assertions on what an operator would see. */
export class RecordingLogger implements Logger {
  readonly lines: { level: "debug" | "info" | "warn" | "error"; msg: string; fields: LogFields | undefined }[] = [];
  debug(msg: string, fields?: LogFields): void {
    this.lines.push({ level: "debug", msg, fields });
  }
  info(msg: string, fields?: LogFields): void {
    this.lines.push({ level: "info", msg, fields });
  }
  warn(msg: string, fields?: LogFields): void {
    this.lines.push({ level: "warn", msg, fields });
  }
  error(msg: string, fields?: LogFields): void {
    this.lines.push({ level: "error", msg, fields });
  }
  /** The messages logged at `level`, in order. */
  at(level: string): string[] {
    return this.lines.filter((l) => l.level === level).map((l) => l.msg);
  }
}
