import { useState } from "preact/hooks";
import { query } from "../admin-client.js";
import type { Lineage, LineageVersion } from "../api-types.js";
import { dttm, instant, DASH } from "../format.js";
import { FieldDiffTable } from "../field-diff-table.js";
import { Loaded } from "../loaded.js";
import { useAdmin } from "../use-admin.js";
import { href } from "../use-hash-route.js";

/**
 * A flight's or a reference key's lineage (`basePath` + `/lineage`), newest version first: per
 * version the source message, the field changes, and the events with where they were published.
 */
export function LineageTimeline(props: { basePath: string; what: string }) {
  const [before, setBefore] = useState<number | undefined>();
  const [page] = useAdmin<Lineage>(`${props.basePath}/lineage${query({ limit: 20, before })}`);
  return (
    <section aria-labelledby="lineage-title">
      <h2 id="lineage-title">Lineage</h2>
      <Loaded load={page} what={`Lineage of ${props.what}`} placeholder={<p class="placeholder tall">Loading the lineage…</p>}>
        {(lineage) => (
          <>
            <ol class="timeline">
              {lineage.versions.map((v) => (
                <VersionItem key={v.version} v={v} />
              ))}
            </ol>
            <div class="pager">
              {before !== undefined && (
                <button type="button" onClick={() => setBefore(undefined)}>
                  Newest
                </button>
              )}
              {lineage.next !== null && (
                <button type="button" onClick={() => setBefore(lineage.next ?? undefined)}>
                  Older versions
                </button>
              )}
            </div>
          </>
        )}
      </Loaded>
    </section>
  );
}

function VersionItem(props: { v: LineageVersion }) {
  const { v } = props;
  const s = v.source;
  return (
    <li data-testid={`lineage-version-${v.version}`} class="version">
      <h3>
        Version {v.version} <span class="muted small">{instant(v.at)}</span>
      </h3>
      <p class="source">
        {s === null ? (
          <span class="muted">No source message recorded (the version is older than lineage, or its message was swept).</span>
        ) : (
          <>
            from message{" "}
            {s.status === "DEAD" ? (
              <a href={href("dead", s.msgId)} class="mono">
                {s.msgId}
              </a>
            ) : (
              <span class="mono">{s.msgId}</span>
            )}{" "}
            <span class="mono">
              {s.type}/{s.subtype}
            </span>{" "}
            DTTM {dttm(s.dttm)} · <span class="badge">{s.status}</span>
            {s.errorClass ? ` ${s.errorClass}` : ""}
          </>
        )}
      </p>
      <FieldDiffTable changes={v.changes} />
      {v.events.length > 0 && (
        <div class="table-wrap">
          <table class="events">
            <thead>
              <tr>
                <th scope="col">event</th>
                <th scope="col">target</th>
                <th scope="col">type</th>
                <th scope="col">status</th>
                <th scope="col">sent</th>
                <th scope="col" class="num">partition</th>
                <th scope="col" class="num">offset</th>
              </tr>
            </thead>
            <tbody>
              {v.events.map((e) => (
                <tr key={String(e.eventId)}>
                  <td class="mono">{e.eventId}</td>
                  <td class="mono nowrap">{e.target}</td>
                  <td>{e.eventType}</td>
                  <td>{e.status}</td>
                  <td>{instant(e.sentAt)}</td>
                  <td class="num">{e.partition ?? DASH}</td>
                  <td class="num">{e.offset ?? DASH}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </li>
  );
}
