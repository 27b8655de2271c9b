import type { FieldChange } from "./api-types.js";
import { collectionDiff, type CollectionDiff } from "./collection-diff.js";
import { value } from "./format.js";
import { Table, type Column } from "./table.js";

const SCALAR_COLUMNS: readonly Column[] = ["field", "before", { label: "becomes" }, "after"];
const ROW_COLUMNS: readonly Column[] = ["row", "change", "values"];

/**
 * A field diff: one row per field, before → after, absent, cleared and null told apart; a
 * collection's change as its rows added, removed and changed (each changed value before → after),
 * not as two JSON strings.
 */
export function FieldDiffTable(props: { changes: readonly FieldChange[]; testid?: string }) {
  if (props.changes.length === 0) return <p class="muted">No field changes.</p>;
  const collections = props.changes.flatMap((c) => {
    const diff = collectionDiff(c);
    return diff === undefined ? [] : [{ change: c, diff }];
  });
  const scalars = props.changes.filter((c) => !collections.some((x) => x.change === c));
  return (
    <div data-testid={props.testid}>
      {scalars.length > 0 && (
        <Table columns={SCALAR_COLUMNS} class="diff" wrap>
          {scalars.map((c) => (
            <tr key={c.field}>
              <th scope="row" class="mono">{c.field}</th>
              <td class={`mono before${c.before === undefined ? " muted" : ""}`}>{value(c.before, c.field)}</td>
              <td aria-hidden="true">→</td>
              <td class={`mono after${c.after === undefined ? " muted" : ""}`}>{value(c.after, c.field)}</td>
            </tr>
          ))}
        </Table>
      )}
      {collections.map(({ change, diff }) => (
        <CollectionDiffTable key={change.field} change={change} diff={diff} />
      ))}
    </div>
  );
}

const rowValues = (values: Readonly<Record<string, unknown>>): string =>
  Object.entries(values)
    .map(([name, v]) => `${name}=${value(v, "row.")}`)
    .join(", ");

function CollectionDiffTable(props: { change: FieldChange; diff: CollectionDiff }) {
  const { change, diff } = props;
  const name = change.field.slice("collections.".length);
  const cleared = Array.isArray(change.after) && change.after.length === 0;
  const gone = change.after === undefined;
  return (
    <div class="collection-diff" data-testid={`collection-diff-${name}`}>
      <h4 class="mono">
        {change.field}
        <span class="muted small">
          {" "}
          {change.before === undefined ? "(was absent)" : ""}
          {gone ? " → (absent)" : cleared ? " → (cleared: no rows)" : ""}
        </span>
      </h4>
      <Table columns={ROW_COLUMNS} class="diff rows-diff" wrap>
        {diff.added.map((r) => (
          <tr key={`+${r.key}`} class="added">
            <th scope="row" class="mono">{r.key}</th>
            <td>added</td>
            <td class="mono after">{rowValues(r.values)}</td>
          </tr>
        ))}
        {diff.changed.map((r) => (
          <tr key={`~${r.key}`} class="changed">
            <th scope="row" class="mono">{r.key}</th>
            <td>changed</td>
            <td class="mono">
              {r.changes.map((c) => (
                <div key={c.name}>
                  {c.name}: <span class={`before${c.before === undefined ? " muted" : ""}`}>{value(c.before, "row.")}</span> →{" "}
                  <span class={`after${c.after === undefined ? " muted" : ""}`}>{value(c.after, "row.")}</span>
                </div>
              ))}
            </td>
          </tr>
        ))}
        {diff.removed.map((r) => (
          <tr key={`-${r.key}`} class="removed">
            <th scope="row" class="mono">{r.key}</th>
            <td>removed</td>
            <td class="mono before">{rowValues(r.values)}</td>
          </tr>
        ))}
        {diff.added.length + diff.changed.length + diff.removed.length === 0 && (
          <tr>
            <td colSpan={3} class="muted">
              No row changed ({gone ? "the collection is no longer in the state" : "the collection was stated with the same rows"}).
            </td>
          </tr>
        )}
      </Table>
    </div>
  );
}
