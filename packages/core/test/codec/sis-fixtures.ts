import { readFileSync } from "node:fs";

/** The raw text of a fixture in `test/fixtures/sis/`. */
export const fixture = (name: string): string => readFileSync(new URL(`../fixtures/sis/${name}`, import.meta.url), "utf8");

/** The six example messages of the shared WIRE.md fixtures. */
export const SHARED_FIXTURES = [
  "01-schd-dnld-3-flights.xml",
  "02-schd-resp.xml",
  "03-flop-gtdt-gate-change.xml",
  "04-flop-estt.xml",
  "05-flop-fdel.xml",
  "06-ldm-ignored.xml",
] as const;

/** A message around `body` with a valid META of the given type and subtype. */
export const msg = (type: string, styp: string, body: string): string =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>1</SEQN><DTTM>20260305020000</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>${body}</MSG>`;
