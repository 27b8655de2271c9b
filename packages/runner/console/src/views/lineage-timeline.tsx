import { useState } from "preact/hooks";
import { query } from "../admin-client.js";
import type { LineageEvent, LineagePage, LineageVersion } from "../api-types.js";
import { dttm, instant, DASH } from "../format.js";
import { FieldDiffTable } from "../field-diff-table.js";
import { Loaded } from "../loaded.js";
import { Pager } from "../pager.js";
import { Table } from "../table.js";
import { useAdmin } from "../use-admin.js";
import { href } from "../use-hash-route.js";

/**
 * A flight's or a reference key's lineage (`basePath` + `/lineage`), newest version first: per
 * version the source message, the field changes, and the events with where they were published.
 */
export function LineageTimeline(props: { basePath: string; what: string }) {
  const [before, setBefore] = useState<number | undefined>();
  const [page] = useAdmin<LineagePage>(`${props.basePath}/lineage${query({ limit: 20, before })}`);
  return (
    <section aria-labelledby="lineage-title">
      <h2 id="lineage-title">Lineage</h2>
      <Loaded load={page} what={`Lineage of ${props.what}`} placeholder={<p class="placeholder tall">Loading the lineage…</p>}>
        {(lineage) => (
          <>
            <ol class="timeline">
              {lineage.versions.map((v, i) => (
                <VersionItem key={v.version} v={v} newer={lineage.versions.slice(0, i)} />
              ))}
            </ol>
            <Pager first="Newest" next="Older versions" onFirst={before !== undefined ? () => setBefore(undefined) : undefined} onNext={lineage.next !== null ? () => setBefore(lineage.next ?? undefined) : undefined} />
          </>
        )}
      </Loaded>
    </section>
  );
}

/**
 * Where a SENT event without a placement went: the compacted topic's flusher sent one record per
 * flight with the newest pending version, so the record of the nearest newer version with a
 * placement on the same target carried it (docs/lineage.md). Undefined when that version is not
 * on this page.
 */
function carrierOf(e: LineageEvent, newer: readonly LineageVersion[]): { version: number; event: LineageEvent } | undefined {
  for (const v of [...newer].reverse()) {
    const same = v.events.find((x) => x.target === e.target && x.offset !== null);
    if (same) return { version: v.version, event: same };
  }
  return undefined;
}

/** `events/<topic>.jsonl line N` (embedded), `partition P @ offset O` (Kafka), or why there is none. */
function Placement(props: { e: LineageEvent & { readonly file?: string; readonly line?: number }; carrier: { version: number; event: LineageEvent } | undefined }) {
  const { e, carrier } = props;
  if (e.file !== undefined && e.line !== undefined)
    return (
      <span class="mono">
        {e.file} line {e.line}
      </span>
    );
  if (e.offset !== null)
    return (
      <span class="mono">
        partition {e.partition ?? DASH} @ offset {e.offset}
      </span>
    );
  if (e.status !== "SENT") return <span class="muted">not published yet</span>;
  if (carrier !== undefined) {
    const at = carrier.event as LineageEvent & { readonly file?: string; readonly line?: number };
    return (
      <span data-testid="coalesced">
        merged into version {carrier.version}'s record ({at.file !== undefined ? `${at.file} line ${at.line}` : `partition ${at.partition} @ offset ${at.offset}`})
      </span>
    );
  }
  return <span class="muted">merged into a newer version's record (compacted topic), or sent before lineage recorded placements</span>;
}

const EVENT_COLUMNS = ["event", "target", "type", "status", "sent", "published at"];

function VersionItem(props: { v: LineageVersion; newer: readonly LineageVersion[] }) {
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
        <Table columns={EVENT_COLUMNS} class="events cards-narrow compact" wrap>
          {v.events.map((e) => (
            <tr key={String(e.eventId)} data-testid={`lineage-event-${e.eventId}`}>
              <td class="mono" data-label="event">
                {e.eventId}
              </td>
              <td class="mono nowrap" data-label="target">
                {e.target}
              </td>
              <td data-label="type">{e.eventType}</td>
              <td data-label="status">{e.status}</td>
              <td data-label="sent">{instant(e.sentAt)}</td>
              <td data-label="published at">
                <Placement e={e} carrier={e.offset === null && e.status === "SENT" ? carrierOf(e, props.newer) : undefined} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </li>
  );
}
