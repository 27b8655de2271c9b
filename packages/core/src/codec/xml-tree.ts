import { SaxesParser } from "saxes";
import type { SaxesTagPlain } from "saxes";
import type { CodecLimits } from "./decode-result.js";
import type { Stepped } from "./stepped.js";

/** One element of a parsed document. Names are kept literally (no namespace processing). */
export interface XmlElement {
  readonly name: string;
  readonly attributes: ReadonlyMap<string, string>;
  /** Child elements in document order. */
  readonly children: readonly XmlElement[];
  /** The element's own character data (text and CDATA, not its descendants'), untrimmed. */
  readonly text: string;
}

export type XmlTreeResult =
  | { readonly ok: true; readonly root: XmlElement }
  | { readonly ok: false; readonly reason: string };

interface Building {
  name: string;
  attributes: Map<string, string>;
  children: Building[];
  textParts: string[];
  text: string;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Thrown out of a saxes handler to stop the parse at the first problem. */
class Rejection extends Error {}

const describe = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The most UTF-16 code units fed to the parser between two pauses of `parseXmlTreeSteps`: a few
 * milliseconds of parsing whatever the markup density, so other work on the event loop never
 * waits long behind one large message (docs/benchmarks.md "Figures behind choices in the code").
 */
export const DEFAULT_PARSE_SLICE = 64 * 1024;

/**
 * Parses `raw` into an element tree, or says why it refuses to, feeding the parser `slice` code
 * units at a time and yielding between two slices, so that a caller may let other work run while
 * a large document is read (a document of one slice or less never yields). Whether the tree is
 * refused does not depend on the slice size; the wording of the reason may (saxes can see a fault
 * a character earlier in a short slice).
 *
 * Guarantees, whatever the input:
 * - never throws (but for a `slice` that is not a positive integer), and expands nothing: any
 *   DOCTYPE (hence any entity declaration) is refused, and an entity reference other than the
 *   five predefined ones is a parser error;
 * - the first parser error is final (saxes would go on past it; we throw out of its handler);
 * - `limits` hold: the UTF-8 size is checked before parsing, and depth, attributes per element and
 *   the element count are checked as each tag is read, so a hostile document costs at most
 *   `maxBytes` of scanning and never builds more than `maxElements` nodes;
 * - one root element, named `expectedRoot` when given; no text outside it;
 * - every character is a valid XML character (no lone UTF-16 surrogates either).
 */
export function* parseXmlTreeSteps(
  raw: string,
  limits: CodecLimits,
  expectedRoot?: string,
  slice: number = DEFAULT_PARSE_SLICE,
): Stepped<XmlTreeResult> {
  if (!Number.isInteger(slice) || slice < 1) throw new RangeError(`slice must be a positive integer, got ${slice}`);
  if (typeof raw !== "string") return { ok: false, reason: "raw text missing" };
  // UTF-8 never takes fewer bytes than UTF-16 code units, so the cheap test goes first.
  if (raw.length > limits.maxBytes || Buffer.byteLength(raw, "utf8") > limits.maxBytes) {
    return { ok: false, reason: `input exceeds maxBytes (${limits.maxBytes})` };
  }
  if (raw.trim() === "") return { ok: false, reason: "empty input" };
  // saxes pairs a high surrogate with whatever code unit follows, so it lets lone ones through.
  if (LONE_SURROGATE.test(raw)) return { ok: false, reason: "not well-formed: a lone surrogate (invalid character)" };

  const parser = new SaxesParser({ xmlns: false, position: true });
  const stack: Building[] = [];
  let root: Building | undefined;
  let elements = 0;
  let attributes = 0;

  parser.on("error", (err) => {
    throw new Rejection(`not well-formed: ${err.message}`);
  });
  parser.on("doctype", () => {
    throw new Rejection("DOCTYPE declarations are refused");
  });
  parser.on("opentagstart", (tag) => {
    if (root !== undefined && stack.length === 0) throw new Rejection("a second root element");
    if (++elements > limits.maxElements) throw new Rejection(`more than maxElements (${limits.maxElements}) elements`);
    if (stack.length + 1 > limits.maxDepth) throw new Rejection(`nesting deeper than maxDepth (${limits.maxDepth})`);
    if (root === undefined && expectedRoot !== undefined && tag.name !== expectedRoot) {
      throw new Rejection(`root element is ${tag.name}, expected ${expectedRoot}`);
    }
    attributes = 0;
    const node: Building = { name: tag.name, attributes: new Map(), children: [], textParts: [], text: "" };
    const parent = stack[stack.length - 1];
    if (parent === undefined) root = node;
    else parent.children.push(node);
    stack.push(node);
  });
  parser.on("attribute", () => {
    if (++attributes > limits.maxAttributes) {
      throw new Rejection(`an element with more than maxAttributes (${limits.maxAttributes}) attributes`);
    }
  });
  parser.on("opentag", (tag: SaxesTagPlain) => {
    const node = stack[stack.length - 1];
    if (node === undefined) throw new Rejection("open tag outside any element");
    for (const [name, value] of Object.entries(tag.attributes)) node.attributes.set(name, value);
  });
  parser.on("closetag", () => {
    const node = stack.pop();
    if (node === undefined) throw new Rejection("close tag outside any element");
    node.text = node.textParts.join("");
    node.textParts = [];
  });
  const onText = (text: string): void => {
    const node = stack[stack.length - 1];
    if (node !== undefined) node.textParts.push(text);
    else if (text.trim() !== "") throw new Rejection("text outside the root element");
  };
  parser.on("text", onText);
  parser.on("cdata", onText);

  // saxes carries a trailing CR or high surrogate over to the next write, so any cut is safe.
  for (let at = 0; ; ) {
    try {
      const end = Math.min(at + slice, raw.length);
      parser.write(raw.slice(at, end));
      at = end;
      if (at >= raw.length) {
        parser.close();
        break;
      }
    } catch (e) {
      return { ok: false, reason: e instanceof Rejection ? e.message : `parser failure: ${describe(e)}` };
    }
    yield;
  }
  if (root === undefined) return { ok: false, reason: "no root element" };
  return { ok: true, root };
}

/** Child elements of `parent` named `name`, in document order. */
export const childrenNamed = (parent: XmlElement, name: string): XmlElement[] =>
  parent.children.filter((c) => c.name === name);

/** An element with no attributes, no child elements and only whitespace text: "present and empty". */
export const isEmptyElement = (e: XmlElement): boolean =>
  e.attributes.size === 0 && e.children.length === 0 && e.text.trim() === "";
