import { Table, type Column } from "./table.js";

/** A table's placeholder: `rows` rows of `columns` dashes, the height of the loaded table. */
export function PlaceholderRows(props: { rows: number; columns: number }) {
  return (
    <>
      {Array.from({ length: props.rows }, (_, r) => (
        <tr key={r} class="placeholder-row">
          {Array.from({ length: props.columns }, (_, c) => (
            <td key={c}>—</td>
          ))}
        </tr>
      ))}
    </>
  );
}

/**
 * A loading table, shown where the loaded one will be: `rows` rows of dashes under the head of
 * `columns` (a number: that many columns, no head), so the page does not jump when the data comes.
 */
export function PlaceholderTable(props: { columns: readonly Column[] | number; rows: number; wrap?: boolean }) {
  const { columns } = props;
  return (
    <Table columns={typeof columns === "number" ? undefined : columns} wrap={props.wrap}>
      <PlaceholderRows rows={props.rows} columns={typeof columns === "number" ? columns : columns.length} />
    </Table>
  );
}
