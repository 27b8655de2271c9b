/** A choice of one among `tabs` as a group of toggle buttons (`aria-pressed` on the chosen one); `label` names the group. */
export function ToggleTabs<Id extends string>(props: { label: string; tabs: readonly { readonly id: Id; readonly label: string }[]; selected: Id; onSelect: (id: Id) => void }) {
  return (
    <div class="tabs" role="group" aria-label={props.label}>
      {props.tabs.map((t) => (
        <button key={t.id} type="button" aria-pressed={props.selected === t.id} onClick={() => props.onSelect(t.id)}>
          {t.label}
        </button>
      ))}
    </div>
  );
}
