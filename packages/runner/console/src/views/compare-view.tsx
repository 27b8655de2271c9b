import { useState } from "preact/hooks";
import type { FlightComparison, FlightDifference } from "@msgx/core";
import { adminPost } from "../admin-client.js";
import { count, value } from "../format.js";
import { Loaded } from "../loaded.js";
import { useAdmin } from "../use-admin.js";
import { href } from "../use-hash-route.js";

/** The answer of `POST /admin/compare`: the report of `msgx compare --json`. */
type CompareReport = FlightComparison & { readonly ours: string; readonly theirs: string; readonly operationDays: readonly string[] };

/**
 * Compare: runs this runner's flights against another system's `/all/flights` (one of the
 * configured `compare.against` URLs) and shows the differences grouped by field, each flight
 * linking to its lineage (docs/console.md).
 */
export function CompareView() {
  const [targets] = useAdmin<{ against: readonly string[] }>("/admin/compare");
  return (
    <section aria-labelledby="compare-title">
      <h1 id="compare-title">Compare</h1>
      <p class="muted small">
        This runner's flights against the system it replaces, as both serve <code>/all/flights</code>: missing flights, differing fields and collection rows. Version counters,
        message ids and their DTTM belong to each system and are left out (docs/operations.md "Going live").
      </p>
      <Loaded load={targets} what="Comparison targets">
        {(t) =>
          t.against.length === 0 ? (
            <p class="notice absent" data-testid="not-available">
              No comparison target is configured on this runner: set <code>compare.against</code> (docs/configuration.md), or run <code>./msgx compare</code> from a shell.
            </p>
          ) : (
            <CompareForm against={t.against} />
          )
        }
      </Loaded>
    </section>
  );
}

function CompareForm(props: { against: readonly string[] }) {
  const [against, setAgainst] = useState(props.against[0]!);
  const [days, setDays] = useState("");
  const [ignore, setIgnore] = useState("");
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<{ ok: true; report: CompareReport } | { ok: false; text: string } | undefined>();
  const list = (text: string) => text.split(/[\s,]+/).filter((s) => s !== "");
  return (
    <>
      <form
        class="form"
        aria-labelledby="compare-form-title"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          const a = await adminPost<CompareReport>("/admin/compare", { against, operationDays: list(days), ignore: list(ignore) });
          setBusy(false);
          setAnswer(a.ok ? { ok: true, report: a.data } : { ok: false, text: `${a.error}: ${a.message}` });
        }}
      >
        <h2 id="compare-form-title">Run a comparison</h2>
        <div class="fields-row">
          <label>
            Against
            <select data-testid="compare-against" value={against} onChange={(e) => setAgainst(e.currentTarget.value)}>
              {props.against.map((url) => (
                <option key={url} value={url}>
                  {url}
                </option>
              ))}
            </select>
          </label>
          <label>
            Operation days
            <input data-testid="compare-days" placeholder="all, or 20260305 20260306" value={days} onInput={(e) => setDays(e.currentTarget.value)} />
          </label>
          <label>
            Also ignore
            <input data-testid="compare-ignore" placeholder="fields.ESTT collections.DELY" value={ignore} onInput={(e) => setIgnore(e.currentTarget.value)} />
          </label>
          <button type="submit" class="primary" data-testid="compare-run" disabled={busy}>
            {busy ? "Comparing…" : "Compare"}
          </button>
        </div>
      </form>
      {answer && !answer.ok && (
        <p class="notice error" role="alert">
          Could not compare: {answer.text}
        </p>
      )}
      {answer?.ok && <CompareResult report={answer.report} />}
    </>
  );
}

function CompareResult(props: { report: CompareReport }) {
  const { report } = props;
  const groups = new Map<string, FlightDifference[]>();
  for (const d of report.differences) groups.set(d.path, [...(groups.get(d.path) ?? []), d]);
  return (
    <div data-testid="compare-result">
      <p class={`notice ${report.agree ? "ok" : "error"}`} role="status" data-testid="compare-verdict">
        {report.agree
          ? `Agree: no difference over ${count(report.flights.both)} flights.`
          : `Differ: ${count(report.flights.differing)} flight(s), ${count(report.differences.length)} difference(s).`}{" "}
        <span class="muted small">
          This runner {count(report.flights.ours)} flights, {report.theirs} {count(report.flights.theirs)}; {report.operationDays.length ? `days ${report.operationDays.join(", ")}` : "all days"}; ignored{" "}
          {report.ignored.join(", ")}.
        </span>
      </p>
      {[...groups.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([path, differences]) => (
          <DifferenceGroup key={path} path={path} differences={differences} />
        ))}
    </div>
  );
}

function DifferenceGroup(props: { path: string; differences: readonly FlightDifference[] }) {
  const rows = props.path.startsWith("collections.") && props.differences.some((d) => d.kind === "row");
  return (
    <article aria-label={props.path} data-testid={`compare-group-${props.path}`}>
      <h2>
        <span class="mono">{props.path === "flight" ? "missing flights" : props.path}</span> <span class="badge">{count(props.differences.length)}</span>
      </h2>
      <div class="table-wrap">
        <table class="diff">
          <thead>
            <tr>
              <th scope="col">FLID</th>
              {rows && <th scope="col">row</th>}
              <th scope="col">this runner</th>
              <th scope="col">other system</th>
            </tr>
          </thead>
          <tbody>
            {props.differences.map((d, i) => (
              <tr key={`${d.flid}:${i}`}>
                <th scope="row" class="mono">
                  <a href={href("flights", d.flid)} title="this flight's state and lineage">
                    {d.flid}
                  </a>
                </th>
                {rows && <td class="mono">{d.kind === "row" ? `${d.key} (${d.change})` : ""}</td>}
                <td class="mono before">{side(d, "ours")}</td>
                <td class="mono after">{side(d, "theirs")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </article>
  );
}

/** One side of a difference as text: a missing flight, a field's value, or a row's differing values. */
function side(d: FlightDifference, which: "ours" | "theirs"): string {
  if (d.kind === "missing") return d.missingFrom === which ? "(missing)" : "present";
  if (d.kind === "field") return value(d[which]);
  const row = d[which];
  if (row === undefined) return "(no row)";
  const names = d.change === "changed" ? (d.values ?? []) : Object.keys(row);
  return names.map((n) => `${n}: ${value(row[n])}`).join(", ");
}
