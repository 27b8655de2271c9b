/** Follows a row's link when the row is clicked anywhere (the link itself stays the keyboard's way in). */
export function openRow(to: string) {
  return (e: MouseEvent) => {
    // A click on the link, a button or selected text does what it does already.
    if ((e.target as Element).closest("a, button, input, select, summary") || getSelection()?.toString()) return;
    location.hash = to;
  };
}
