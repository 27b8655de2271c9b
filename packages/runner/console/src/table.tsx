import type { ComponentChildren } from "preact";

/**
 * A column's heading: its text; or its text and the heading's class (`num` for a column of
 * figures, right-aligned like its cells; `mono`); or, for a heading with no text, its accessible
 * name (`label`).
 */
export type Column = string | { readonly text?: string; readonly class?: string; readonly label?: string };

/** A column of figures: its heading right-aligned like its cells. */
export const num = (text: string): Column => ({ text, class: "num" });

/** A table's head: one `<th scope="col">` per column. */
export function TableHead(props: { columns: readonly Column[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column, i) => {
          const c = typeof column === "string" ? { text: column } : column;
          return (
            <th key={i} scope="col" class={c.class} aria-label={c.label}>
              {c.text}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/**
 * The console's table: the head of `columns` (none when omitted), `children` as its body rows;
 * `wrap` puts it in its own horizontal scroller (`table-wrap`), for a table not already inside one,
 * so a wide table scrolls instead of the page.
 */
export function Table(props: { columns?: readonly Column[]; class?: string; testid?: string; wrap?: boolean; children: ComponentChildren }) {
  const table = (
    <table class={props.class} data-testid={props.testid}>
      {props.columns !== undefined && <TableHead columns={props.columns} />}
      <tbody>{props.children}</tbody>
    </table>
  );
  return props.wrap ? <div class="table-wrap">{table}</div> : table;
}
