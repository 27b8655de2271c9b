#!/usr/bin/env node
import { setFlagsFromString } from "node:v8";
import { CommanderError } from "commander";
import { withCommonOptions } from "./commands/common-options.js";
import { errorMessage, isMsgxError } from "@msgx/core";
import { runCommand } from "./commands/run-command.js";
import { EXIT, EXIT_CODES_HELP } from "./commands/exit-codes.js";
import { MsgxCommand } from "./commands/msgx-command.js";
import { registerAdminCommands } from "./commands/admin-commands.js";
import { registerCompareCommand } from "./commands/compare-command.js";
import { demoCommand } from "./commands/demo-command.js";
import { registerReliableCommands } from "./commands/reliable-commands.js";
import { registerRequestCommands } from "./commands/request-commands.js";
import { registerTasksCommands } from "./commands/tasks-commands.js";
import { BASELINE_WASM_FLAG } from "./embedded/pglite-data-dir.js";
import { RUNNER_VERSION } from "./version.js";

// The embedded state, PGlite, is PostgreSQL compiled to WebAssembly: V8's baseline compiler only.
// The optimising tier recompiles hot functions on background threads and keeps their compiler
// memory resident for no CPU saved on msgx's statements (docs/benchmarks.md "The embedded
// runner's memory"). Nothing has compiled WebAssembly yet; with real PostgreSQL nothing does.
setFlagsFromString(BASELINE_WASM_FLAG);

const program = new MsgxCommand()
  .name("msgx")
  .description(
    "Reliable message exchange: reads the AODB mailbox, applies flight messages to PostgreSQL in mailbox order, publishes every change to Kafka.\n" +
      "Without --pg/--mysql/--kafka it runs embedded: PGlite state and mailbox in --data-dir, events in <data-dir>/events/<topic>.jsonl.",
  )
  .version(RUNNER_VERSION)
  .addHelpText("after", `\n${EXIT_CODES_HELP}`)
  .showHelpAfterError()
  // A usage error exits 2 like a configuration error; subcommands inherit this.
  .exitOverride();

withCommonOptions(program.command("run"))
  .description("run the exchange: intake, pump, delivery, jobs and the HTTP server")
  .option("--http-host <host>", "HTTP listen address (env MSGX_HTTP_HOST)")
  .option("--http-port <port>", "HTTP port, 0 = any free port (env MSGX_HTTP_PORT)")
  .option("--shadow", "read and process, never write the shared mailbox (env MSGX_SHADOW)")
  .option("--token-file <path>", "read the bearer token (16+ characters) from this file; else env MSGX_HTTP_TOKEN. Never give a token in argv: ps shows it")
  .addHelpText(
    "after",
    "\nThe token (http.token) guards POST /cminmsgs/send and /admin (and /rm/v1, /task/v1 without their own):\n" +
      "  MSGX_HTTP_TOKEN=$(cat /run/secrets/msgx-token) msgx run …   or   msgx run --token-file /run/secrets/msgx-token …\n" +
      "Without a token the runner listens on loopback only; a non-loopback --http-host needs one (or http.allowAnonymous=true).",
  )
  .action(runCommand);

registerAdminCommands(program);
registerReliableCommands(program);
registerRequestCommands(program);
registerTasksCommands(program);
registerCompareCommand(program);

withCommonOptions(program.command("demo"))
  .description("generate a realistic airport day, feed it through the HTTP ingress and print a summary")
  .option("--flights <n>", "flights in the morning snapshot", "300")
  .option("--updates <n>", "FLOP updates after the snapshot", "1500")
  .option("--seed <n>", "random seed (same seed, same day)", "20260305")
  .option("--url <url>", "post to an already running runner instead of starting one")
  .option("--http-port <port>", "HTTP port of the runner the demo starts (0 = any)", "0")
  .option("--verbose", "print the runner's JSON log lines on stderr (default: appended to <data-dir>/demo.log)")
  .action(demoCommand);

program.parseAsync(process.argv).catch((e: unknown) => {
  // commander has printed its message (or the help) already.
  if (e instanceof CommanderError) process.exit(e.exitCode === 0 ? EXIT.ok : EXIT.config);
  process.stderr.write(`msgx: ${errorMessage(e)}\n`);
  process.exit(isMsgxError(e) && e.kind === "CONFIG" ? EXIT.config : EXIT.failure);
});
