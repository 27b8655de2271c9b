/**
 * A paged list's buttons: back to the first page (`onFirst`, given when not on it) and on to the
 * next (`onNext`, given when there is one), each named by its label.
 */
export function Pager(props: { first: string; next: string; onFirst: (() => void) | undefined; onNext: (() => void) | undefined }) {
  return (
    <div class="pager">
      {props.onFirst !== undefined && (
        <button type="button" onClick={props.onFirst}>
          {props.first}
        </button>
      )}
      {props.onNext !== undefined && (
        <button type="button" onClick={props.onNext}>
          {props.next}
        </button>
      )}
    </div>
  );
}
