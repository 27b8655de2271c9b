import type { LogFields, Logger } from "@msgx/core";

/** One line per entry on stdout, `debug` dropped. */
export function consoleLogger(name: string): Logger {
  const line = (level: string) => (msg: string, fields?: LogFields) => {
    console.log(`${new Date().toISOString()} ${name} [${level}] ${msg}${fields === undefined ? "" : ` ${JSON.stringify(fields)}`}`);
  };
  return { debug() {}, info: line("info"), warn: line("warn"), error: line("error") };
}
