import { sparklineSegments } from "./sparkline-segments.js";

/**
 * An inline SVG sparkline of fixed size (no layout shift whatever the data), with its scale: the
 * highest and lowest value drawn, in the card's unit (`format`), and the time axis (`minutes` ago
 * → now). `label` is its accessible name.
 */
export function Sparkline(props: { values: readonly (number | null)[]; label: string; format: (n: number) => string; minutes: number; width?: number; height?: number }) {
  const width = props.width ?? 120;
  const height = props.height ?? 28;
  const known = props.values.filter((v): v is number => v !== null && Number.isFinite(v));
  const max = known.length > 0 ? Math.max(...known) : undefined;
  const min = known.length > 0 ? Math.min(...known) : undefined;
  return (
    <div class="spark" data-testid="sparkline">
      <div class="spark-plot">
        <svg class="sparkline" viewBox={`0 0 ${width} ${height}`} width={width} height={height} preserveAspectRatio="none" role="img" aria-label={`${props.label}${max === undefined ? ": no data" : `: ${props.format(min!)} to ${props.format(max)}`}`}>
          {sparklineSegments(props.values, width, height).map((points, i) => {
            // A lone minute (a runner that just started has one sample) is a dot, not an invisible line.
            if (!points.includes(" ")) {
              const [cx, cy] = points.split(",");
              return <circle key={i} cx={cx} cy={cy} r="2" fill="currentColor" />;
            }
            return <polyline key={i} points={points} fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" vector-effect="non-scaling-stroke" />;
          })}
        </svg>
        <div class="spark-y" aria-hidden="true">
          <span>{max === undefined ? "" : props.format(max)}</span>
          <span>{min === undefined || min === max ? "" : props.format(min)}</span>
        </div>
      </div>
      <div class="spark-x" aria-hidden="true">
        <span>−{props.minutes} min</span>
        <span>now</span>
      </div>
    </div>
  );
}
