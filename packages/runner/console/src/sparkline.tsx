import { sparklineSegments } from "./sparkline-segments.js";

/** An inline SVG sparkline of fixed size (no layout shift whatever the data); `label` is its accessible name. */
export function Sparkline(props: { values: readonly (number | null)[]; label: string; width?: number; height?: number }) {
  const width = props.width ?? 120;
  const height = props.height ?? 28;
  return (
    <svg class="sparkline" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={props.label}>
      {sparklineSegments(props.values, width, height).map((points, i) => {
        // A lone minute (a runner that just started has one sample) is a dot, not an invisible line.
        if (!points.includes(" ")) {
          const [cx, cy] = points.split(",");
          return <circle key={i} cx={cx} cy={cy} r="2" fill="currentColor" />;
        }
        return <polyline key={i} points={points} fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" />;
      })}
    </svg>
  );
}
