/**
 * A SIS message in the layout real upstream traffic has (WIRE.md "Envelope"): the XML
 * declaration, the root's xsi attributes (written with spaces around `=`, as upstream does), META
 * in the order SNDR, SEQN, DTTM, TYPE, STYP, one element per line, tab-indented.
 */
export function sisMessage(meta: { readonly seqn: number; readonly dttm: string; readonly type: string; readonly styp: string }, body: readonly SisNode[]): string {
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<MSG xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation = "unisysaodbsis.xsd">`,
    ...render(el("META", {}, [leaf("SNDR", "AODB"), leaf("SEQN", String(meta.seqn)), leaf("DTTM", meta.dttm), leaf("TYPE", meta.type), leaf("STYP", meta.styp)]), 1),
    ...body.flatMap((n) => render(n, 1)),
    `</MSG>`,
  ];
  return `${lines.join("\n")}\n`;
}

/** An element: its attributes, then either child elements or text (`null`: empty, self-closing). */
export interface SisNode {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly SisNode[];
  readonly text: string | null;
}

export const el = (name: string, attributes: Readonly<Record<string, string>>, children: readonly SisNode[]): SisNode => ({ name, attributes, children, text: null });
export const leaf = (name: string, text: string | null, attributes: Readonly<Record<string, string>> = {}): SisNode => ({ name, attributes, children: [], text });

const escape = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function render(n: SisNode, depth: number): string[] {
  const pad = "\t".repeat(depth);
  const attrs = Object.entries(n.attributes)
    .map(([k, v]) => ` ${k}="${escape(v)}"`)
    .join("");
  if (n.children.length > 0) return [`${pad}<${n.name}${attrs}>`, ...n.children.flatMap((c) => render(c, depth + 1)), `${pad}</${n.name}>`];
  return [n.text === null ? `${pad}<${n.name}${attrs}/>` : `${pad}<${n.name}${attrs}>${escape(n.text)}</${n.name}>`];
}
