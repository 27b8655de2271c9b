import { formatBodyTime } from "@msgx/core";
import { el, leaf, sisMessage, type SisNode } from "./sis-layout.js";

/** A message of the generated day and what it is meant to exercise. */
export interface DemoMessage {
  readonly xml: string;
  readonly kind: "reference" | "seasonal" | "snapshot" | "update" | "cancel" | "delete" | "ignorable" | "malformed" | "duplicate";
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

const AIRLINES: readonly (readonly [string, string, string])[] = [
  ["CZ", "CSN", "中国南方航空"],
  ["MU", "CES", "中国东方航空"],
  ["CA", "CCA", "中国国际航空"],
  ["HU", "CHH", "海南航空"],
  ["3U", "CSC", "四川航空"],
  ["ZH", "CSZ", "深圳航空"],
  ["MF", "CXA", "厦门航空"],
  ["FM", "CSH", "上海航空"],
];
const AIRPORTS = ["PEK", "SHA", "PVG", "CTU", "XIY", "KMG", "HGH", "WUH", "CKG", "SZX", "HKG", "TPE"];
const ACFT = ["320", "321", "333", "738", "789", "77W"];
const GATES = ["A", "B", "C"].flatMap((p) => Array.from({ length: 40 }, (_, i) => `${p}${i + 1}`));
const STANDS = ["A", "B", "N"].flatMap((p) => Array.from({ length: 80 }, (_, i) => `${p}${100 + i}`));
const COUNTERS = Array.from({ length: 60 }, (_, i) => `C${String(i + 1).padStart(2, "0")}`);
const DELAY_CODES = ["81", "93", "11", "41"];
const STATUSES = ["ONTIME", "DELAY", "BOARDING", "DEPARTED", "ARRIVED"];
const SERVICES = ["WCHR", "CATR", "PLBR"];
const VIPS = ["V001", "V002", "V003"];
const VIP_SERVICES = ["VS01", "VS02", "VS03"];
const HANDLERS = ["101", "102", "103"];
const BRIDGES = Array.from({ length: 20 }, (_, i) => `AB${10 + i}`);
/** FLOP time-group subtypes other than ESTT and CNCL, which have branches of their own. */
const TIME_SUBTYPES = ["TOBT", "COBT", "EOBT", "CTOT", "BOTM", "LACL", "FINT", "APPT", "IEST", "EGSR", "EGST"];
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
  readonly stand: string;
  /** Chocks events stated so far (a CHOT FLOP restates them all: replace). */
  chocks: number;
}

const leaves = (values: Readonly<Record<string, string>>): SisNode[] => Object.entries(values).map(([k, v]) => leaf(k, v));

/**
 * The reference data the day's flights point at (WIRE.md "Reference data"), as the upstream
 * pushes it before the schedule: one DNLD per type, records named like the type under `MSG`.
 */
function referenceDownloads(): { type: string; records: SisNode[] }[] {
  const rec = (type: string, values: Readonly<Record<string, string>>, more: SisNode[] = []) => el(type, {}, [...leaves(values), ...more]);
  return [
    { type: "AIRL", records: AIRLINES.map(([iata, icao, name]) => rec("AIRL", { ITOP: iata, ICOP: icao, ONAM: `${iata} AIRLINES`, ONMC: name, CTRY: "CN" }, [leaf("TRML", "T1", { MVIN: "A", FLIN: "D" }), leaf("TRML", "T2", { MVIN: "D", FLIN: "D" }), leaf("DORI", "D")])) },
    { type: "GLST", records: GATES.map((g) => rec("GLST", { GCOD: g, GTNM: `GATE ${g}`, GNMC: `${g}登机口`, GCAT: "D", GTML: g.startsWith("C") ? "T1" : "T2", PIER: `P${g[0]}` })) },
    { type: "SLST", records: STANDS.map((s) => rec("SLST", { SCOD: s, STNM: `STAND ${s}`, SNMC: `${s}号机位`, SATC: s.startsWith("N") ? "C" : "E", STML: s.startsWith("B") ? "T1" : "T2", FEPU: s.startsWith("N") ? "N" : "Y" })) },
    { type: "ABDG", records: BRIDGES.map((b) => rec("ABDG", { ABCD: b, DESC: `BRIDGE ${b}`, CDSC: `${b}号廊桥`, ATML: "T2", ATHE: "Y" })) },
    { type: "CLST", records: COUNTERS.map((c) => rec("CLST", { CCOD: c, CTNM: `COUNTER ${c}`, CNMC: `${c}号值机柜台`, CCAT: "Y", CTML: "T2", CTRA: "N" })) },
    { type: "DLYL", records: DELAY_CODES.map((d) => rec("DLYL", { DCOD: d, DCDN: d.padStart(3, "0"), DDES: `DELAY ${d}`, DDSC: `延误原因${d}` })) },
    { type: "STTS", records: STATUSES.map((s) => rec("STTS", { STTC: s, STTD: s, STDC: s === "DELAY" ? "延误" : "正常", ABNS: s === "DELAY" ? "Y" : "N" })) },
    { type: "HLTR", records: SERVICES.map((s) => rec("HLTR", { HLTC: s, HLTD: s, HTDC: `服务${s}`, HLTT: "PAX" })) },
    { type: "ORGN", records: HANDLERS.map((o) => rec("ORGN", { OGID: o, ONAM: `HANDLER ${o}`, ONMC: `地服${o}` }, [leaf("OCAT", "RAMP")])) },
    { type: "VIPL", records: VIPS.map((v) => rec("VIPL", { VPCD: v, VPNC: `贵宾${v}`, VRNK: v.slice(-1) })) },
    { type: "VIPS", records: VIP_SERVICES.map((v) => rec("VIPS", { VSCD: v, VSDS: `VIP SERVICE ${v}`, VSDC: `贵宾服务${v}` })) },
  ];
}

/**
 * Generates one airport day in the upstream's real layout (WIRE.md): reference DNLDs (airlines,
 * gates, stands, counters and the codes flights point at) and a seasonal schedule (SKIPPED
 * `ignored:SCHS` by default) before 02:00, a DNLD snapshot of `flights` flights at 02:00, then
 * `updates` FLOP messages through the day — estimates and the other time-group subtypes (a
 * self-closing one clears), gates, stands, check-in, delays, status, chocks events, services,
 * VIPs, airbridges, doors, remarks, cancellations and reinstatements, deletions — with ignorable
 * LDM messages, a few malformed ones and a few upstream resends (duplicate identities) mixed in.
 */
export function airportDay(options: { flights: number; updates: number; seed: number }): DemoMessage[] {
  const r = rng(options.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  let seqn = 480_000;
  let clock = 90 * 60;
  const message = (type: string, styp: string, body: SisNode[]) => sisMessage({ seqn: ++seqn, dttm: dttm(clock), type, styp }, body);

  const out: DemoMessage[] = [];
  for (const { type, records } of referenceDownloads()) {
    clock += 60;
    out.push({ kind: "reference", xml: message(type, "DNLD", [leaf("RECS", String(records.length)), ...records]) });
  }
  clock += 60;
  out.push({ kind: "seasonal", xml: message("SCHS", "DNLD", [el("SCHS", {}, [leaf("SNAM", "Summer 2026"), leaf("APCD", "CAN"), leaf("SDAT", "29MAR26"), leaf("EDAT", "24OCT26"), leaf("RECS", "0")])]) });

  clock = 2 * 3600;
  const flights: DemoFlight[] = Array.from({ length: options.flights }, (_, i) => {
    const alcd = pick(AIRLINES)[0];
    return { flid: 900_001 + i, alcd, flno: `${alcd}${1000 + Math.floor(r() * 8999)}`, mvin: r() < 0.5 ? "A" : "D", sodt: 6 * 60 + Math.floor(r() * 17 * 60), stand: pick(STANDS), chocks: 0 };
  });
  const fltr = (f: DemoFlight) =>
    el("FLTR", {}, [
      ...leaves({ FLID: String(f.flid), ALCD: f.alcd, FLNO: f.flno, MVIN: f.mvin, SODT: bt(f.sodt), FLTY: "W", FLIN: "D", ACFT: pick(ACFT), TRML: `T${1 + Math.floor(r() * 2)}`, STND: f.stand }),
      el("ROUT", { RTNO: "1" }, [leaf("APCD", pick(AIRPORTS)), f.mvin === "A" ? leaf("SCDT", bt(f.sodt - 120)) : leaf("SCAT", bt(f.sodt + 150))]),
      el("PSDT", { PSNO: "1" }, [leaf("PSST", f.stand), leaf("STST", bt(f.sodt - 60)), leaf("STET", bt(f.sodt + 45))]),
    ]);
  out.push({ kind: "snapshot", xml: message("SCHD", "DNLD", [el("SCHD", {}, [leaf("RECS", String(flights.length)), ...flights.map(fltr)])]) });

  const live = new Set(flights.map((f) => f.flid));
  const byId = new Map(flights.map((f) => [f.flid, f]));
  for (let i = 0; i < options.updates; i++) {
    clock += 1 + Math.floor(r() * 40);
    const roll = r();
    const f = byId.get(pick([...live]))!;
    const ffid = leaf("FFID", `${f.alcd}-${f.flno}-${f.mvin}-${bt(f.sodt)}-D`);
    const flop = (styp: string, nodes: SisNode[]) => message("FLOP", styp, [el("FLOP", {}, [leaf("FLID", String(f.flid)), ffid, ...nodes])]);
    const update = (styp: string, nodes: SisNode[]) => out.push({ kind: "update", xml: flop(styp, nodes) });
    if (roll < 0.02) {
      // Cut short inside its body: not well-formed, DEAD(MALFORMED).
      const whole = flop("ESTT", [leaf("ESTT", bt(f.sodt))]);
      out.push({ kind: "malformed", xml: whole.slice(0, whole.lastIndexOf("</ESTT>") + 4) });
    } else if (roll < 0.04 && out.length > 2) {
      // An upstream resend of one of the last few messages (a malformed one has no identity to dedupe on).
      let k = out.length - 1 - Math.floor(r() * Math.min(5, out.length - 1));
      while (out[k]!.kind === "malformed") k -= 1;
      out.push({ kind: "duplicate", xml: out[k]!.xml });
    } else if (roll < 0.08) {
      out.push({ kind: "ignorable", xml: message("LDM", "NONE", [el("LDM", {}, [leaf("FLID", String(f.flid)), leaf("TEXT", `${f.flno}/05.Y${100 + Math.floor(r() * 200)}`)])]) });
    } else if (roll < 0.1 && live.size > 10) {
      live.delete(f.flid);
      out.push({ kind: "delete", xml: flop("FDEL", [leaf("FDEL", null)]) });
    } else if (roll < 0.13) {
      out.push({ kind: "cancel", xml: flop("CNCL", [leaf("CNCL", r() < 0.8 ? bt(f.sodt - 60) : null)]) });
    } else if (roll < 0.33) {
      update("ESTT", [leaf("ESTT", bt(f.sodt + Math.floor(r() * 90) - 15))]);
    } else if (roll < 0.4) {
      const styp = pick(TIME_SUBTYPES);
      update(styp, [leaf(styp, r() < 0.15 ? null : bt(f.sodt - 60 + Math.floor(r() * 60)))]);
    } else if (roll < 0.5) {
      update("GTDT", [el("GTDT", { GTNO: "1" }, [leaf("GATE", pick(GATES)), leaf("PGOT", bt(f.sodt - 50)), leaf("PGCT", bt(f.sodt - 15))])]);
    } else if (roll < 0.57) {
      update("STND", [leaf("STND", pick(STANDS))]);
    } else if (roll < 0.63) {
      update("DELY", [leaf("DELY", "delay", { CODE: pick(DELAY_CODES), STRT: bt(f.sodt), DURA: `00${String(10 + Math.floor(r() * 49))}` })]);
    } else if (roll < 0.68) {
      update("FTSS", [leaf("FTSS", pick(STATUSES))]);
    } else if (roll < 0.73) {
      update("CKDT", [el("CKDT", { CKNO: "1" }, [leaf("CHKC", pick(COUNTERS)), leaf("PCOT", bt(f.sodt - 120)), leaf("PCCT", bt(f.sodt - 40))])]);
    } else if (roll < 0.8) {
      // One chocks event per row, ON then OFF, restated in full (CHOT replaces).
      f.chocks = Math.min(2, f.chocks + 1);
      const events = [["ON", f.sodt - 70], ["OFF", f.sodt + 5]] as const;
      update("CHOT", events.slice(0, f.chocks).map(([id, at], k) => el("CHOT", { CSNO: String(k + 1) }, [leaf("CHTM", bt(at)), leaf("CHID", id), leaf("CHST", f.stand)])));
    } else if (roll < 0.86) {
      update("SRVT", [el("SRVT", {}, [leaf("SRTC", pick(SERVICES)), leaf("SRQT", String(1 + Math.floor(r() * 3))), leaf("SRST", bt(f.sodt - 50)), leaf("SRET", bt(f.sodt - 20)), leaf("SRPR", pick(HANDLERS))])]);
    } else if (roll < 0.9) {
      const vipt = el("VIPT", {}, [leaf("VSCD", pick(VIP_SERVICES)), leaf("VTQY", "1"), leaf("VTST", bt(f.sodt - 45)), leaf("VTET", bt(f.sodt - 10))]);
      update("VIPF", [el("VIPF", {}, [leaf("VPCD", pick(VIPS)), leaf("VFES", String(Math.floor(r() * 4))), vipt])]);
    } else if (roll < 0.93) {
      update("ABTM", [el("ABTM", { ASNO: "1" }, [leaf("ABDG", pick(BRIDGES)), leaf("ABOP", "A"), leaf("AOTM", bt(f.sodt - 55))])]);
    } else if (roll < 0.96) {
      update("PORT", [el("PORT", {}, [leaf("POTM", bt(f.sodt - 25 + Math.floor(r() * 20))), leaf("POID", r() < 0.5 ? "O" : "C")])]);
    } else {
      update("REMC", [leaf("REMC", pick(["请提前登机", "登机口变更 请留意广播", "航班延误 敬请谅解"]))]);
    }
  }
  return out;
}
