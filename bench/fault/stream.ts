/**
 * The benchmark stream: a SCHD/DNLD snapshot of `flights` flights, then FLOP updates (times,
 * stands, gates, check-in counters, delays) on random flights of it, with source times that only
 * go forward (no update is stale). Deterministic for a seed and a day, so every mode sees the same
 * messages. The flights are of the airport's local today by default (UTC+8, the runner's default
 * `airport.utcOffsetMinutes`), as live traffic is: the leader holds only the open operation days'
 * flights in memory (`pipeline.memoryOpenDays`), so a stream of a long-gone day would measure the
 * rare message for a closed day, every run reading its flights.
 */
import { retirementCutoffDay } from "@msgx/core";
import { rng } from "./infra.js";

const pad2 = (n: number): string => String(n).padStart(2, "0");
export const benchFlid = (i: number): string => String(900_001 + i);
const AIRLINES = ["CZ", "MU", "CA", "HU", "3U", "ZH", "MF", "FM"];
const AIRPORTS = ["PEK", "SHA", "PVG", "CTU", "XIY", "KMG", "HGH", "WUH", "CKG", "SZX", "HKG", "TPE"];

const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

/** Midnight (as a UTC instant of the same calendar date) of the airport's local today at UTC+8, the runner's default. */
function airportToday(): number {
  const day = retirementCutoffDay(Date.now(), { retentionDays: 0, airportUtcOffsetMinutes: 480 });
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6, 8)));
}

/** `yyyyMMddHHmmss` of `day` 02:00:00 plus `seconds`. */
function dttm(day: number, seconds: number): string {
  const d = new Date(day + 2 * 3_600_000 + seconds * 1000);
  return `${d.getUTCFullYear()}${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())}${pad2(d.getUTCHours())}${pad2(d.getUTCMinutes())}${pad2(d.getUTCSeconds())}`;
}

/** The body-time date prefix (`ddMMMyy`, e.g. `05MAR26`) of `day`. */
function bodyDate(day: number): string {
  const d = new Date(day);
  return `${pad2(d.getUTCDate())}${MONTHS[d.getUTCMonth()]}${pad2(d.getUTCFullYear() % 100)}`;
}

export interface StreamOptions {
  readonly flights: number;
  /** Messages in all, the DNLD included. */
  readonly messages: number;
  readonly seed?: number;
  /** First SEQN (identities must not collide between two streams in one mailbox). */
  readonly firstSeqn?: number;
  /** The flights' operation day, as the UTC instant of its midnight (default: the airport's local today). */
  readonly day?: number;
}

export function dnldThenFlops(options: StreamOptions): string[] {
  const random = rng(options.seed ?? 20260305);
  const day = options.day ?? airportToday();
  const date = bodyDate(day);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const time = () => `${date}${pad2(6 + Math.floor(random() * 16))}${pad2(Math.floor(random() * 60))}`;
  let seqn = options.firstSeqn ?? 100_000;
  const meta = (i: number, type: string, styp: string) => `<META><SNDR>AODB</SNDR><SEQN>${seqn++}</SEQN><DTTM>${dttm(day, i)}</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>`;

  const fltr = (i: number): string => {
    const alcd = pick(AIRLINES);
    const mvin = random() < 0.5 ? "A" : "D";
    const h = 6 + Math.floor(random() * 16);
    const sodt = `${date}${pad2(h)}${pad2(Math.floor(random() * 60))}`;
    return (
      `<FLTR><FLID>${benchFlid(i)}</FLID><ALCD>${alcd}</ALCD><FLNO>${alcd}${1000 + i}</FLNO><MVIN>${mvin}</MVIN><SODT>${sodt}</SODT>` +
      `<FLTY>W</FLTY><FLIN>D</FLIN><ACFT>320</ACFT><TRML>T${1 + (i % 2)}</TRML>` +
      `<ROUT RTNO="1"><APCD>${pick(AIRPORTS)}</APCD>${mvin === "A" ? `<SCDT>${sodt}</SCDT>` : `<SCAT>${sodt}</SCAT>`}</ROUT></FLTR>`
    );
  };
  const out = [`<MSG>${meta(0, "SCHD", "DNLD")}<SCHD><RECS>${options.flights}</RECS>${Array.from({ length: options.flights }, (_, i) => fltr(i)).join("")}</SCHD></MSG>`];

  const bodies: Record<string, () => string> = {
    ESTT: () => `<ESTT>${time()}</ESTT>`,
    ACTT: () => `<ACTT>${time()}</ACTT>`,
    STND: () => `<STND>A${100 + Math.floor(random() * 80)}</STND>`,
    GTDT: () => `<GTDT GTNO="1"><GATE>A${pad2(1 + Math.floor(random() * 40))}</GATE><PGOT>${time()}</PGOT><PGCT>${time()}</PGCT><GTYP>D</GTYP></GTDT>`,
    CKDT: () =>
      `<CKDT CKNO="1"><CHKC>C${pad2(1 + Math.floor(random() * 60))}</CHKC><CCLS>Y</CCLS><PCOT>${time()}</PCOT><PCCT>${time()}</PCCT><CTYP>D</CTYP></CKDT>` +
      `<CKDT CKNO="2"><CHKC>C${pad2(1 + Math.floor(random() * 60))}</CHKC><CCLS>F</CCLS><PCOT>${time()}</PCOT><PCCT>${time()}</PCCT><CTYP>D</CTYP></CKDT>`,
    DELY: () => `<DELY CODE="${pad2(Math.floor(random() * 99))}" STRT="${time()}" DURA="00${pad2(Math.floor(random() * 60))}">ATC flow</DELY>`,
  };
  const subtypes = Object.keys(bodies);
  for (let i = 1; i < options.messages; i++) {
    const styp = pick(subtypes);
    const flid = benchFlid(Math.floor(random() * options.flights));
    out.push(`<MSG>${meta(i, "FLOP", styp)}<FLOP><FLID>${flid}</FLID>${bodies[styp]!()}</FLOP></MSG>`);
  }
  return out;
}
