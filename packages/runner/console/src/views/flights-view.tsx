import { useState } from "preact/hooks";
import { query } from "../admin-client.js";
import type { FlightPayload } from "../api-types.js";
import { count, dttm, value } from "../format.js";
import { Loaded, PlaceholderRows } from "../loaded.js";
import { useAdmin, type Load } from "../use-admin.js";
import { href } from "../use-hash-route.js";
import { LineageTimeline } from "./lineage-timeline.js";

/** Flights: search by FLID or flight number; one flight's current state and its lineage timeline. */
export function FlightsView(props: { flid: string | undefined }) {
  const [text, setText] = useState("");
  const [q, setQ] = useState<string | undefined>();
  const [results] = useAdmin<{ flights: readonly FlightPayload[] }>(q === undefined ? null : `/admin/flights${query({ q, limit: 50 })}`);
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
      </form>
      {q !== undefined && <SearchResults load={results} selected={props.flid} />}
      {props.flid !== undefined && <Flight key={props.flid} flid={props.flid} />}
    </section>
  );
}

function SearchResults(props: { load: Load<{ flights: readonly FlightPayload[] }>; selected: string | undefined }) {
  const head = (
    <thead>
      <tr>
        <th scope="col">FLID</th>
        <th scope="col">flight</th>
        <th scope="col">A/D</th>
        <th scope="col">scheduled</th>
        <th scope="col">stand</th>
        <th scope="col" class="num">version</th>
      </tr>
    </thead>
  );
  return (
    <div class="table-wrap results">
      <Loaded
        load={props.load}
        what="Flight search"
        placeholder={
          <table>
            {head}
            <tbody>
              <PlaceholderRows rows={3} columns={6} />
            </tbody>
          </table>
        }
      >
        {({ flights }) =>
          flights.length === 0 ? (
            <p class="muted">No flight matches.</p>
          ) : (
            <table>
              {head}
              <tbody>
                {flights.map((f) => (
                  <tr key={f.flid} data-testid={`flight-row-${f.flid}`} class={f.flid === props.selected ? "selected" : undefined}>
                    <td class="mono">
                      <a href={href("flights", f.flid)}>{f.flid}</a>
                    </td>
                    <td>
                      {f.fields.FLNO ?? "—"}
                      {f.deleted ? <span class="badge warn">deleted</span> : null}
                    </td>
                    <td>{f.fields.MVIN ?? "—"}</td>
                    <td>{f.fields.SODT ?? "—"}</td>
                    <td>{f.fields.STND ?? "—"}</td>
                    <td class="num">{f.stateVersion}</td>
                  </tr>
                ))}
              </tbody>
            </table>
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
              <div class="table-wrap">
                <table class="fields">
                  <tbody>
                    {Object.entries(f.fields).map(([name, v]) => (
                      <tr key={name}>
                        <th scope="row" class="mono">{name}</th>
                        <td class="mono">{value(v)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <h3>Collections</h3>
              {Object.keys(f.collections).length === 0 ? (
                <p class="muted">None.</p>
              ) : (
                Object.entries(f.collections).map(([name, rows]) => (
                  <details key={name}>
                    <summary>
                      <span class="mono">{name}</span> ({Array.isArray(rows) ? `${rows.length} row${rows.length === 1 ? "" : "s"}` : "value"})
                    </summary>
                    <pre class="json">{JSON.stringify(rows, null, 2)}</pre>
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
