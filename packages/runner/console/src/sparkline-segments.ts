/** The polylines of a sparkline in a `width`×`height` box: one per run of known values (null is a gap). */
export function sparklineSegments(values: readonly (number | null)[], width: number, height: number): string[] {
  const known = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (values.length < 2 || known.length === 0) return [];
  const min = Math.min(...known);
  const max = Math.max(...known);
  const pad = 2;
  const y = (v: number) => (max === min ? height / 2 : pad + (1 - (v - min) / (max - min)) * (height - 2 * pad));
  const x = (i: number) => (i / (values.length - 1)) * width;
  const segments: string[] = [];
  let current: string[] = [];
  values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v)) {
      if (current.length > 0) segments.push(current.join(" "));
      current = [];
    } else current.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  });
  if (current.length > 0) segments.push(current.join(" "));
  return segments;
}
