import { formatBodyTime } from "@msgx/core";

/** A message of the generated day and what it is meant to exercise. */
export interface DemoMessage {
  readonly xml: string;
  readonly kind: "snapshot" | "update" | "cancel" | "delete" | "ignorable" | "malformed" | "duplicate";
}

/** A small deterministic PRNG (mulberry32), so a seed always gives the same day. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const AIRLINES = ["CZ", "MU", "CA", "HU", "3U", "ZH", "MF", "FM"];
const AIRPORTS = ["PEK", "SHA", "PVG", "CTU", "XIY", "KMG", "HGH", "WUH", "CKG", "SZX", "HKG", "TPE"];
const ACFT = ["320", "321", "333", "738", "789", "77W"];
const DAY = { year: 2026, month: 3, day: 5 };

const iso = (minuteOfDay: number) => {
  const m = Math.max(0, Math.min(minuteOfDay, 24 * 60 - 1));
  const hh = String(Math.floor(m / 60)).padStart(2, "0");
  const mm = String(m % 60).padStart(2, "0");
  return `${DAY.year}-${String(DAY.month).padStart(2, "0")}-${String(DAY.day).padStart(2, "0")}T${hh}:${mm}`;
};
const bt = (minuteOfDay: number) => formatBodyTime(iso(minuteOfDay));
const dttm = (second: number) => {
  const h = Math.floor(second / 3600) % 24;
  const m = Math.floor(second / 60) % 60;
  const s = second % 60;
  return `20260305${[h, m, s].map((n) => String(n).padStart(2, "0")).join("")}`;
};

interface DemoFlight {
  readonly flid: number;
  readonly alcd: string;
  readonly flno: string;
  readonly mvin: "A" | "D";
  readonly sodt: number;
}

/**
 * Generates one airport day in the upstream's format: a DNLD snapshot of `flights` flights at
 * 02:00, then `updates` FLOP messages through the day (estimates, gates, stands, check-in,
 * delays, cancellations and reinstatements, deletions), with ignorable LDM messages, a few
 * malformed ones and a few upstream resends (duplicate identities) mixed in.
 */
export function airportDay(options: { flights: number; updates: number; seed: number }): DemoMessage[] {
  const r = rng(options.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  let seqn = 480_000;
  let clock = 2 * 3600;
  const meta = (type: string, styp: string) => `<META><SNDR>AODB</SNDR><SEQN>${++seqn}</SEQN><DTTM>${dttm(clock)}</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>`;

  const flights: DemoFlight[] = Array.from({ length: options.flights }, (_, i) => {
    const alcd = pick(AIRLINES);
    return { flid: 900_001 + i, alcd, flno: `${alcd}${1000 + Math.floor(r() * 8999)}`, mvin: r() < 0.5 ? "A" : "D", sodt: 6 * 60 + Math.floor(r() * 17 * 60) };
  });
  const fltr = (f: DemoFlight) =>
    `<FLTR><FLID>${f.flid}</FLID><ALCD>${f.alcd}</ALCD><FLNO>${f.flno}</FLNO><MVIN>${f.mvin}</MVIN><SODT>${bt(f.sodt)}</SODT>` +
    `<FLTY>W</FLTY><FLIN>D</FLIN><ACFT>${pick(ACFT)}</ACFT><TRML>T${1 + Math.floor(r() * 2)}</TRML>` +
    `<ROUT RTNO="1"><APCD>${pick(AIRPORTS)}</APCD>${f.mvin === "A" ? `<SCDT>${bt(f.sodt - 120)}</SCDT>` : `<SCAT>${bt(f.sodt + 150)}</SCAT>`}</ROUT></FLTR>`;

  const out: DemoMessage[] = [
    { kind: "snapshot", xml: `<MSG>${meta("SCHD", "DNLD")}<SCHD><RECS>${flights.length}</RECS>${flights.map(fltr).join("")}</SCHD></MSG>` },
  ];
  const live = new Set(flights.map((f) => f.flid));
  const byId = new Map(flights.map((f) => [f.flid, f]));
  for (let i = 0; i < options.updates; i++) {
    clock += 1 + Math.floor(r() * 40);
    const roll = r();
    const f = byId.get(pick([...live]))!;
    const flop = (styp: string, body: string) => `<MSG>${meta("FLOP", styp)}<FLOP><FLID>${f.flid}</FLID>${body}</FLOP></MSG>`;
    if (roll < 0.02) {
      out.push({ kind: "malformed", xml: `<MSG>${meta("FLOP", "ESTT")}<FLOP><FLID>${f.flid}</FLID><ESTT>${bt(f.sodt)}</EST` });
    } else if (roll < 0.04 && out.length > 2) {
      out.push({ kind: "duplicate", xml: out[out.length - 1 - Math.floor(r() * Math.min(5, out.length - 1))]!.xml });
    } else if (roll < 0.1) {
      out.push({ kind: "ignorable", xml: `<MSG>${meta("LDM", "NONE")}<LDM><FLID>${f.flid}</FLID><TEXT>${f.flno}/05.Y${100 + Math.floor(r() * 200)}</TEXT></LDM></MSG>` });
    } else if (roll < 0.12 && live.size > 10) {
      live.delete(f.flid);
      out.push({ kind: "delete", xml: flop("FDEL", "<FDEL/>") });
    } else if (roll < 0.15) {
      out.push({ kind: "cancel", xml: flop("CNCL", r() < 0.8 ? `<CNCL>${bt(f.sodt - 60)}</CNCL>` : "<CNCL/>") });
    } else if (roll < 0.45) {
      out.push({ kind: "update", xml: flop("ESTT", `<ESTT>${bt(f.sodt + Math.floor(r() * 90) - 15)}</ESTT>`) });
    } else if (roll < 0.6) {
      out.push({ kind: "update", xml: flop("GTDT", `<GTDT GTNO="1"><GATE>${pick(["A", "B", "C"])}${1 + Math.floor(r() * 40)}</GATE><PGOT>${bt(f.sodt - 50)}</PGOT><PGCT>${bt(f.sodt - 15)}</PGCT></GTDT>`) });
    } else if (roll < 0.72) {
      out.push({ kind: "update", xml: flop("STND", `<STND>${pick(["A", "B", "N"])}${100 + Math.floor(r() * 80)}</STND>`) });
    } else if (roll < 0.82) {
      out.push({ kind: "update", xml: flop("DELY", `<DELY CODE="${pick(["81", "93", "11", "41"])}" STRT="${bt(f.sodt)}" DURA="00${String(10 + Math.floor(r() * 49))}">delay</DELY>`) });
    } else if (roll < 0.9) {
      out.push({ kind: "update", xml: flop("FTSS", `<FTSS>${pick(["ONTIME", "DELAY", "BOARDING", "DEPARTED", "ARRIVED"])}</FTSS>`) });
    } else {
      out.push({ kind: "update", xml: flop("CKDT", `<CKDT CKNO="1"><CHKC>C${String(1 + Math.floor(r() * 60)).padStart(2, "0")}</CHKC><PCOT>${bt(f.sodt - 120)}</PCOT><PCCT>${bt(f.sodt - 40)}</PCCT></CKDT>`) });
    }
  }
  return out;
}
