import { writeFile } from "node:fs/promises";
import { Command, Option } from "commander";
import { compareFlights, COMPARISON_IGNORED_BY_DEFAULT, errorMessage, ignoreEntryProblem, MAX_FLIGHT_LIST_LIMIT, MsgxError, type ComparableFlight } from "@msgx/core";
import { flightsOf, httpPageReader, readFlightDump, readFlightPages, type FlightPage } from "../compare/flight-pages.js";
import { comparisonJson, comparisonText } from "../compare/comparison-report.js";
import { remoteToken, tokenFromFile } from "./common-options.js";
import { EXIT } from "./exit-codes.js";

interface CompareFlags {
  readonly url: string;
  readonly against?: string;
  readonly days?: string;
  readonly ignore?: readonly string[];
  readonly json?: boolean;
  readonly dump?: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly againstTokenFile?: string;
  readonly timeoutMs: string;
  readonly pageSize: string;
}

const HTTP_URL = /^https?:\/\//i;

/**
 * `msgx compare`: pages through `/all/flights` of this runner (`--url`) and of the system it
 * replaces (`--against`, a URL or a dump file), and reports where they differ
 * (docs/operations.md "Going live: shadow run and comparison"). Exit 0 agree, 1 differ, 2 usage
 * or connection error.
 */
export function registerCompareCommand(program: Command): void {
  program
    .command("compare")
    .description("compare this runner's flights with another system's /all/flights (or a dump of it): missing flights, differing fields, collection rows")
    .requiredOption("--url <url>", "this runner's base URL, e.g. http://127.0.0.1:8080")
    .option("--against <url|file>", "the other system's base URL (serving /all/flights), or a JSON dump of its pages")
    .option("--days <yyyyMMdd,...>", "only these operation days (comma-separated); default every flight")
    .option("--ignore <paths>", "also leave out these (comma-separated; repeatable): lastMsgId, fields.ESTT, collections.DELY, collections.GTDT.GTYP", collect)
    .option("--json", "print the report as JSON (docs/operations.md)")
    .option("--dump <file>", "write the pages read from --url to this file (a dump --against reads); without --against only that")
    .option("--token-file <path>", "bearer token for --url, read from this file (else env MSGX_HTTP_TOKEN)")
    .addOption(new Option("--token <token>", "bearer token in argv (ps shows it; use --token-file)").hideHelp())
    .option("--against-token-file <path>", "bearer token for an --against URL, read from this file (else env MSGX_COMPARE_AGAINST_TOKEN)")
    .option("--timeout-ms <ms>", "give up on a page after this long", "30000")
    .addOption(new Option("--page-size <n>", `flights per page (1–${MAX_FLIGHT_LIST_LIMIT})`).default(String(MAX_FLIGHT_LIST_LIMIT)))
    .addHelpText(
      "after",
      [
        "",
        `Left out by default (they belong to each system, not to the flight): ${COMPARISON_IGNORED_BY_DEFAULT.join(", ")}.`,
        'Steps, the dump format and how to read the report: docs/operations.md "Going live: shadow run and comparison".',
        "Exit codes:",
        `  ${EXIT.ok}  the two sides agree (or --dump without --against wrote its file)`,
        `  ${EXIT.failure}  they differ`,
        `  ${EXIT.config}  usage error, or a side could not be read (connection, timeout, not /all/flights)`,
      ].join("\n"),
    )
    .action(async (flags: CompareFlags) => {
      try {
        process.exitCode = await compare(flags);
      } catch (e) {
        endProgress();
        process.stderr.write(`msgx compare: ${errorMessage(e)}\n`);
        process.exitCode = EXIT.config;
      }
    });
}

async function compare(flags: CompareFlags): Promise<number> {
  const operationDays = (flags.days ?? "").split(",").map((d) => d.trim()).filter((d) => d !== "");
  const badDay = operationDays.find((d) => !/^\d{8}$/.test(d));
  if (badDay !== undefined) throw new MsgxError("CONFIG", `--days: ${badDay} is not yyyyMMdd`);
  const ignore = (flags.ignore ?? []).flatMap((i) => i.split(",")).map((i) => i.trim()).filter((i) => i !== "");
  const problem = ignore.map(ignoreEntryProblem).find((p) => p !== undefined);
  if (problem) throw new MsgxError("CONFIG", problem);
  if (!HTTP_URL.test(flags.url)) throw new MsgxError("CONFIG", `--url must be an http(s) URL: ${flags.url}`);
  if (flags.against === undefined && flags.dump === undefined) throw new MsgxError("CONFIG", "give --against <url|file> (or --dump <file> to write this side only)");
  const timeoutMs = whole(flags.timeoutMs, "--timeout-ms", 1, 3_600_000);
  const pageSize = whole(flags.pageSize, "--page-size", 1, MAX_FLIGHT_LIST_LIMIT);
  const token = remoteToken(flags, process.env["MSGX_HTTP_TOKEN"]);
  const againstToken = flags.againstTokenFile !== undefined ? tokenFromFile(flags.againstTokenFile) : process.env["MSGX_COMPARE_AGAINST_TOKEN"];

  const progress = progressLine();
  const oursRead = readFlightPages(httpPageReader(flags.url, { token, timeoutMs }), flags.url, { operationDays, pageSize, onPage: (n) => progress("ours", n) });
  const theirsRead: Promise<readonly ComparableFlight[] | undefined> =
    flags.against === undefined
      ? Promise.resolve(undefined)
      : HTTP_URL.test(flags.against)
        ? readFlightPages(httpPageReader(flags.against, { token: againstToken, timeoutMs }), flags.against, { operationDays, pageSize, onPage: (n) => progress("theirs", n) }).then(flightsOf)
        : readFlightDump(flags.against, operationDays);
  const [oursPages, theirs] = await Promise.all([oursRead, theirsRead]);
  if (flags.dump !== undefined) await writeDump(flags.dump, oursPages);
  endProgress();
  if (theirs === undefined) {
    process.stderr.write(`msgx compare: wrote ${flightsOf(oursPages).length} flights of ${flags.url} to ${flags.dump}\n`);
    return EXIT.ok;
  }
  const started = Date.now();
  const result = compareFlights(flightsOf(oursPages), theirs, ignore);
  const sources = { ours: flags.url, theirs: flags.against!, operationDays };
  process.stdout.write(flags.json ? `${JSON.stringify(comparisonJson(result, sources), null, 2)}\n` : comparisonText(result, sources));
  if (process.stderr.isTTY) process.stderr.write(`compared in ${Date.now() - started} ms\n`);
  return result.agree ? EXIT.ok : EXIT.failure;
}

async function writeDump(file: string, pages: readonly FlightPage[]): Promise<void> {
  try {
    await writeFile(file, `${JSON.stringify(pages)}\n`);
  } catch (e) {
    throw new MsgxError("CONFIG", `cannot write the dump ${file}: ${errorMessage(e)}`, { cause: e });
  }
}

/** On a terminal only (stderr): how many flights each side has sent so far, on one rewritten line. */
function progressLine(): (side: "ours" | "theirs", flights: number) => void {
  if (!process.stderr.isTTY) return () => {};
  const counts = { ours: 0, theirs: 0 };
  return (side, flights) => {
    counts[side] = flights;
    process.stderr.write(`\r\x1b[Kreading /all/flights: ours ${counts.ours} flights, theirs ${counts.theirs} flights`);
  };
}

function endProgress(): void {
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
}

function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

function whole(raw: string, option: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new MsgxError("CONFIG", `${option} must be a whole number from ${min} to ${max}: ${raw}`);
  return n;
}
