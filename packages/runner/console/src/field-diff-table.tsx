import type { FieldChange } from "./api-types.js";
import { value } from "./format.js";

/** A field diff, one row per field: before → after; absent and cleared values are told apart. */
export function FieldDiffTable(props: { changes: readonly FieldChange[]; testid?: string }) {
  if (props.changes.length === 0) return <p class="muted">No field changes.</p>;
  return (
    <div class="table-wrap">
      <table class="diff" data-testid={props.testid}>
        <thead>
          <tr>
            <th scope="col">field</th>
            <th scope="col">before</th>
            <th scope="col" aria-label="becomes" />
            <th scope="col">after</th>
          </tr>
        </thead>
        <tbody>
          {props.changes.map((c) => (
            <tr key={c.field}>
              <th scope="row" class="mono">{c.field}</th>
              <td class={`mono before${c.before === undefined ? " muted" : ""}`}>{value(c.before)}</td>
              <td aria-hidden="true">→</td>
              <td class={`mono after${c.after === undefined ? " muted" : ""}`}>{value(c.after)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
