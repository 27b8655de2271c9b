import { Command } from "commander";

type UnknownOption = (this: Command, flag: string) => void;
const commanderUnknownOption = (Command.prototype as unknown as { unknownOption: UnknownOption }).unknownOption;

/**
 * commander's `Command` whose unknown option says what was probably meant, as an unknown command
 * does. commander suggests by spelling (`--datadir` → `--data-dir`); this adds the options whose
 * name holds the word given (`--port` → `--http-port`, `--token` → `--token-file`), and, given to
 * `msgx` itself, the commands that take it (`msgx --http-port` → `msgx run --http-port`).
 * Subcommands made with `.command()` are of this class too.
 */
export class MsgxCommand extends Command {
  override createCommand(name?: string): MsgxCommand {
    return new MsgxCommand(name);
  }

  /** commander calls this for an option no command in the chain declares; it exits through `error`. */
  unknownOption(flag: string): void {
    const hint = flag.startsWith("--") ? optionHint(this, flag.slice(2).split("=")[0]!.toLowerCase()) : undefined;
    if (hint === undefined) return commanderUnknownOption.call(this, flag);
    this.error(`error: unknown option '${flag}'\n(Did you mean ${hint}?)`, { code: "commander.unknownOption" });
  }
}

/** The options of `cmd` (and its parents) whose long name holds `word`; else, for a command with subcommands, theirs. */
function optionHint(cmd: Command, word: string): string | undefined {
  if (word.length < 3) return undefined;
  const holding = (c: Command) => c.options.map((o) => o.long).filter((long): long is string => long !== undefined && long.slice(2).includes(word));
  const own: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) own.push(...holding(c));
  if (own.length > 0) return own.join(" or ");
  const path = (c: Command): string => (c.parent ? `${path(c.parent)} ${c.name()}` : c.name());
  const elsewhere = cmd.commands.flatMap((sub) => holding(sub).map((long) => `${path(sub)} ${long}`));
  return elsewhere.length > 0 ? elsewhere.slice(0, 3).join(" or ") : undefined;
}
