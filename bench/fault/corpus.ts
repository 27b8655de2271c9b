/**
 * Hostile XML for the fault battery: every item must end DEAD(MALFORMED), or be refused at the
 * ingress (413 over `http.maxBodyBytes`, 400 for an empty body) — never expanded, never crash or
 * block the pump. Deterministic for a seed.
 *
 * Categories: billion laughs, external entities (file, http, parameter entity, external DTD), any
 * DOCTYPE, undeclared entities, deep nesting, many attributes, huge text over the 4 MiB cap
 * (ASCII and multi-byte), not XML at all, wrong envelope, truncations at random points, and random
 * mutations of valid messages by operators that each break well-formedness.
 *
 * `nearCap` is kept apart: well-formed-looking documents just under the cap that the parser must
 * read to the end before it can refuse them (the event-loop cost of the caps themselves).
 */
import { rng } from "./infra.js";

export interface HostileItem {
  readonly name: string;
  readonly category: string;
  readonly xml: string;
}

const MIB = 1024 * 1024;
const meta = (seqn: number, type = "FLOP", styp = "ESTT") =>
  `<META><SNDR>AODB</SNDR><SEQN>${seqn}</SEQN><DTTM>20260305030000</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>`;
const flop = (seqn: number, flid: string, body: string) => `<MSG>${meta(seqn)}<FLOP><FLID>${flid}</FLID>${body}</FLOP></MSG>`;

/** Valid messages the mutations start from. */
export function validSamples(flid: string, firstSeqn: number): string[] {
  return [
    flop(firstSeqn, flid, "<ESTT>05MAR260810</ESTT>"),
    `<MSG>${meta(firstSeqn + 1, "FLOP", "GTDT")}<FLOP><FLID>${flid}</FLID><GTDT GTNO="1"><GATE>A12</GATE><PGOT>05MAR260710</PGOT><PGCT>05MAR260745</PGCT></GTDT></FLOP></MSG>`,
    `<MSG>${meta(firstSeqn + 2, "FLOP", "DELY")}<FLOP><FLID>${flid}</FLID><DELY CODE="81" STRT="05MAR260800" DURA="0015">ATC flow</DELY></FLOP></MSG>`,
  ];
}

/**
 * Mutation operators. Each one breaks well-formedness whatever the input (checked by the battery:
 * every mutant must end MALFORMED).
 */
const MUTATIONS: Record<string, (xml: string, r: () => number) => string> = {
  "drop a tag's >": (x, r) => {
    const closes = [...x.matchAll(/>/g)].map((m) => m.index!).filter((i) => i < x.length - 1);
    const at = closes[Math.floor(r() * closes.length)]!;
    return x.slice(0, at) + x.slice(at + 1).replace(/^</, " <");
  },
  "rename a closing tag": (x, r) => {
    const closes = [...x.matchAll(/<\/([A-Z]+)>/g)];
    const m = closes[Math.floor(r() * closes.length)]!;
    return x.slice(0, m.index!) + `</${m[1]}X>` + x.slice(m.index! + m[0].length);
  },
  "raw < in text": (x, r) => {
    const texts = [...x.matchAll(/>([^<]+)</g)];
    const m = texts[Math.floor(r() * texts.length)]!;
    const at = m.index! + 1 + Math.floor(r() * m[1]!.length);
    return x.slice(0, at) + "< " + x.slice(at);
  },
  "bare & in text": (x, r) => {
    const texts = [...x.matchAll(/>([^<]+)</g)];
    const m = texts[Math.floor(r() * texts.length)]!;
    const at = m.index! + 1;
    return x.slice(0, at) + "&amp x " + x.slice(at);
  },
  "control character": (x, r) => {
    const at = 5 + Math.floor(r() * (x.length - 10));
    return x.slice(0, at) + String.fromCharCode(1 + Math.floor(r() * 8)) + x.slice(at);
  },
  "NUL character": (x, r) => {
    const at = 5 + Math.floor(r() * (x.length - 10));
    return x.slice(0, at) + "\u0000" + x.slice(at);
  },
  "duplicate attribute": (x) => x.replace(/<FLOP>/, '<FLOP A="1" A="2">'),
  "text before the root": (x) => `junk ${x}`,
  "second root": (x) => `${x}<MSG/>`,
  "swap two closing tags": (x) => x.replace(/<\/FLOP><\/MSG>$/, "</MSG></FLOP>"),
};

export function hostileCorpus(options: { flid: string; firstSeqn: number; seed: number; truncations?: number; mutations?: number }): HostileItem[] {
  const r = rng(options.seed);
  const { flid } = options;
  let seqn = options.firstSeqn;
  const items: HostileItem[] = [];
  const add = (category: string, name: string, xml: string) => items.push({ category, name, xml });

  // Entities and DOCTYPE.
  const laughs = [`<!ENTITY lol "lol">`, ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? "" : i};`.repeat(10)}">`)].join("");
  add("billion laughs", "10^9 lols", `<?xml version="1.0"?><!DOCTYPE MSG [${laughs}]>${flop(seqn++, flid, "<ESTT>&lol9;</ESTT>")}`);
  add("billion laughs", "quadratic blowup", `<!DOCTYPE MSG [<!ENTITY a "${"x".repeat(50_000)}">]>${flop(seqn++, flid, `<ESTT>${"&a;".repeat(10_000)}</ESTT>`)}`);
  add("external entity", "file:///etc/passwd", `<?xml version="1.0"?><!DOCTYPE MSG [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${flop(seqn++, flid, "<ESTT>&xxe;</ESTT>")}`);
  add("external entity", "http SSRF", `<!DOCTYPE MSG [<!ENTITY xxe SYSTEM "http://127.0.0.1:9/x">]>${flop(seqn++, flid, "<ESTT>&xxe;</ESTT>")}`);
  add("external entity", "parameter entity", `<!DOCTYPE MSG [<!ENTITY % p SYSTEM "http://127.0.0.1:9/evil.dtd"> %p;]>${flop(seqn++, flid, "<ESTT>05MAR260810</ESTT>")}`);
  add("external entity", "external DTD", `<!DOCTYPE MSG SYSTEM "http://127.0.0.1:9/msg.dtd">${flop(seqn++, flid, "<ESTT>05MAR260810</ESTT>")}`);
  add("DOCTYPE", "plain DOCTYPE on a valid message", `<!DOCTYPE MSG>${flop(seqn++, flid, "<ESTT>05MAR260810</ESTT>")}`);
  add("DOCTYPE", "internal subset, no entity used", `<!DOCTYPE MSG [<!ELEMENT MSG ANY>]>${flop(seqn++, flid, "<ESTT>05MAR260810</ESTT>")}`);
  add("entity", "undeclared entity", flop(seqn++, flid, "<ESTT>&xxe;</ESTT>"));
  add("entity", "character reference to an invalid character", flop(seqn++, flid, "<ESTT>&#1;</ESTT>"));

  // Structure.
  add("deep nesting", "10,000 levels", flop(seqn++, flid, `${"<A>".repeat(10_000)}x${"</A>".repeat(10_000)}`));
  add("deep nesting", "200,000 unclosed levels", flop(seqn++, flid, "<A>".repeat(200_000)));
  add("many attributes", "20,000 attributes", flop(seqn++, flid, `<ESTT ${Array.from({ length: 20_000 }, (_, i) => `a${i}="${i}"`).join(" ")}>05MAR260810</ESTT>`));
  add("many attributes", "one attribute of 1 MiB", flop(seqn++, flid, `<ESTT A="${"v".repeat(MIB)}"`));

  // Size.
  add("huge text over the cap", "5 MiB of ASCII", flop(seqn++, flid, `<ESTT>${"9".repeat(5 * MIB)}</ESTT>`));
  add("huge text over the cap", "4.5 MB of 3-byte characters (1.5 M UTF-16 units)", flop(seqn++, flid, `<ESTT>${"航".repeat(1_500_000)}</ESTT>`));

  // Not our XML at all.
  add("not XML", "binary garbage", Array.from({ length: 2_000 }, () => String.fromCharCode(33 + Math.floor(r() * 90))).join(""));
  add("not XML", "JSON", JSON.stringify({ MSG: { META: { TYPE: "FLOP" } } }));
  add("not XML", "unclosed comment", `<!-- ${flop(seqn++, flid, "<ESTT>05MAR260810</ESTT>")}`);
  add("wrong envelope", "another root element", `<FOO>${meta(seqn++)}</FOO>`);
  add("wrong envelope", "MSG without META", `<MSG><FLOP><FLID>${flid}</FLID></FLOP></MSG>`);

  // Truncations and mutations of valid messages.
  const samples = validSamples(flid, 900_000);
  for (let i = 0; i < (options.truncations ?? 8); i++) {
    const s = samples[i % samples.length]!;
    const cut = 1 + Math.floor(r() * (s.length - 2));
    add("truncated", `cut at ${cut} of ${s.length}`, s.slice(0, cut));
  }
  const ops = Object.keys(MUTATIONS);
  for (let i = 0; i < (options.mutations ?? 20); i++) {
    const op = ops[i % ops.length]!;
    const s = samples[Math.floor(r() * samples.length)]!.replace(/<SEQN>\d+<\/SEQN>/, `<SEQN>${seqn++}</SEQN>`);
    add("random mutation", op, MUTATIONS[op]!(s, r));
  }
  return items;
}

/** Documents just under the 4 MiB cap that the parser reads to the end before refusing them. */
export function nearCap(flid: string, firstSeqn: number): HostileItem[] {
  return [
    { category: "near the cap", name: "4 MiB of text, truncated at the end", xml: flop(firstSeqn, flid, `<ESTT>${"x".repeat(4 * MIB - 400)}`).slice(0, -"</FLOP></MSG>".length) },
    { category: "near the cap", name: "190,000 elements, truncated at the end", xml: flop(firstSeqn + 1, flid, "<X>1</X>".repeat(190_000)).slice(0, -"</FLOP></MSG>".length) },
    // Quotes are what a driver escaping client-side spends its time on (~220 ms for this one).
    { category: "near the cap", name: "4 MiB of apostrophes in an attribute, truncated at the end", xml: flop(firstSeqn + 2, flid, `<ESTT A="${"'".repeat(4 * MIB - 400)}`) },
  ];
}
