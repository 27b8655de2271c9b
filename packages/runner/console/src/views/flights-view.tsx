import { useState } from "preact/hooks";
import { query } from "../admin-client.js";
import type { FlightPayload } from "../api-types.js";
import { count, dttm, value } from "../format.js";
import { Loaded } from "../loaded.js";
import { PlaceholderTable } from "../placeholder-table.js";
import { num, Table, type Column } from "../table.js";
import { useAdmin, type Load } from "../use-admin.js";
import { openRow } from "../open-row.js";
import { useReveal } from "../use-reveal.js";
import { href } from "../use-hash-route.js";
import { LineageTimeline } from "./lineage-timeline.js";

/**
 * Flights: the flights changed last until a search (by FLID or flight number) is made; one
 * flight's current state and its lineage timeline.
 */
export function FlightsView(props: { flid: string | undefined }) {
  const [text, setText] = useState("");
  const [q, setQ] = useState<string | undefined>();
  const [results] = useAdmin<{ flights: readonly FlightPayload[] }>(q === undefined ? null : `/admin/flights${query({ q, limit: 50 })}`);
  const flight = useReveal<HTMLDivElement>(props.flid);
  const [recent] = useAdmin<{ flights: readonly FlightPayload[] }>(q === undefined ? "/admin/flights/recent?limit=15" : null, RECENT_REFRESH_MS);
  return (
    <section aria-labelledby="flights-title">
      <h1 id="flights-title">Flights</h1>
      <form
        class="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim() !== "") setQ(text.trim());
        }}
      >
        <label for="flight-search">FLID or flight number</label>
        <input id="flight-search" data-testid="flight-search" type="search" placeholder="900101 or CA1234" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit">Search</button>
        {q !== undefined && (
          <button
            type="button"
            onClick={() => {
              setQ(undefined);
              setText("");
            }}
          >
            Recently changed
          </button>
        )}
      </form>
      {q === undefined ? (
        // With a flight open, the list folds away so the flight comes first (a phone shows each row as a card).
        <details open={props.flid === undefined} class="recent">
          <summary>
            <h2>Recently changed</h2>
          </summary>
          <SearchResults load={recent} selected={props.flid} what="Recently changed flights" testid="recent-flights" />
        </details>
      ) : (
        <SearchResults load={results} selected={props.flid} what="Flight search" />
      )}
      <div ref={flight}>{props.flid !== undefined && <Flight key={props.flid} flid={props.flid} />}</div>
    </section>
  );
}

const RECENT_REFRESH_MS = 10_000;

const RESULT_COLUMNS: readonly Column[] = ["FLID", "flight", "A/D", "scheduled", "stand", num("version"), "last message"];

function SearchResults(props: { load: Load<{ flights: readonly FlightPayload[] }>; selected: string | undefined; what: string; testid?: string }) {
  return (
    <div class="table-wrap results">
      <Loaded load={props.load} what={props.what} placeholder={<PlaceholderTable columns={RESULT_COLUMNS} rows={3} />}>
        {({ flights }) =>
          flights.length === 0 ? (
            <p class="muted">No flight matches.</p>
          ) : (
            <Table columns={RESULT_COLUMNS} class="rows cards-narrow" testid={props.testid}>
              {flights.map((f) => (
                <tr key={f.flid} data-testid={`flight-row-${f.flid}`} class={f.flid === props.selected ? "selected" : undefined} onClick={openRow(href("flights", f.flid))}>
                  <td class="mono" data-label="FLID">
                    <a href={href("flights", f.flid)}>{f.flid}</a>
                  </td>
                  <td data-label="flight">
                    {f.fields.FLNO ?? "—"}
                    {f.deleted ? <span class="badge warn">deleted</span> : null}
                  </td>
                  <td data-label="A/D">{f.fields.MVIN ?? "—"}</td>
                  <td data-label="scheduled">{f.fields.SODT ?? "—"}</td>
                  <td data-label="stand">{f.fields.STND ?? "—"}</td>
                  <td class="num" data-label="version">
                    {f.stateVersion}
                  </td>
                  <td data-label="last message">
                    <span class="mono">{f.lastMsgId}</span> · {dttm(f.lastSrcDttm)}
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </div>
  );
}

function Flight(props: { flid: string }) {
  const path = `/admin/flights/${encodeURIComponent(props.flid)}`;
  const [flight] = useAdmin<FlightPayload>(path);
  return (
    <div class="grid-2 flight">
      <section aria-labelledby="flight-title">
        <h2 id="flight-title">Flight {props.flid}</h2>
        <Loaded load={flight} what={`Flight ${props.flid}`}>
          {(f) => (
            <>
              <dl class="facts">
                <dt>FFID</dt>
                <dd class="mono">{f.ffid ?? "—"}</dd>
                <dt>operation day</dt>
                <dd>{f.operationDay ?? "—"}</dd>
                <dt>version</dt>
                <dd data-testid="flight-version">{count(f.stateVersion)}</dd>
                <dt>deleted</dt>
                <dd>{f.deleted ? "yes" : "no"}</dd>
                <dt>last message</dt>
                <dd>
                  <span class="mono">{f.lastMsgId}</span> · DTTM {dttm(f.lastSrcDttm)}
                </dd>
              </dl>
              <h3>Fields</h3>
              <Table class="fields" wrap>
                {Object.entries(f.fields).map(([name, v]) => (
                  <tr key={name}>
                    <th scope="row" class="mono">{name}</th>
                    <td class="mono">{value(v, "fields.")}</td>
                  </tr>
                ))}
              </Table>
              <h3>Collections</h3>
              {Object.keys(f.collections).length === 0 ? (
                <p class="muted">None.</p>
              ) : (
                Object.entries(f.collections).map(([name, rows]) => (
                  <details key={name}>
                    <summary>
                      <span class="mono">{name}</span> ({rows.length === 0 ? "cleared: no rows" : `${rows.length} row${rows.length === 1 ? "" : "s"}`})
                    </summary>
                    <RowsTable rows={rows} />
                  </details>
                ))
              )}
            </>
          )}
        </Loaded>
      </section>
      <LineageTimeline basePath={path} what={`flight ${props.flid}`} />
    </div>
  );
}

/** A collection's rows as a table: one column per value name any row has; absent and cleared told apart. */
function RowsTable(props: { rows: readonly { readonly key: string; readonly values: Readonly<Record<string, unknown>> }[] }) {
  const names = [...new Set(props.rows.flatMap((r) => Object.keys(r.values)))];
  if (props.rows.length === 0) return <p class="muted">Stated empty (cleared).</p>;
  return (
    <Table columns={["key", ...names.map((n) => ({ text: n, class: "mono" }))]} class="collection" wrap>
      {props.rows.map((r) => (
        <tr key={r.key}>
          <th scope="row" class="mono">{r.key}</th>
          {names.map((n) => (
            <td key={n} class={`mono${r.values[n] === undefined ? " muted" : ""}`}>
              {value(r.values[n], "row.")}
            </td>
          ))}
        </tr>
      ))}
    </Table>
  );
}
