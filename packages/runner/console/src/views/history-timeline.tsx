import { useState } from "preact/hooks";
import { query } from "../admin-client.js";
import type { HistoryCaller, HistoryEntry, HistoryLineage } from "../api-types.js";
import { instant } from "../format.js";
import { Loaded } from "../loaded.js";
import { Pager } from "../pager.js";
import { useAdmin } from "../use-admin.js";

/** The cause's own fields as `key value` pairs (its kind and caller are shown apart). */
const causeFields = (c: HistoryEntry["cause"]): string =>
  Object.entries(c)
    .filter(([k]) => k !== "kind" && k !== "caller")
    .map(([k, v]) => `${k} ${String(v)}`)
    .join(" · ");

function Caller(props: { caller: HistoryCaller }) {
  const c = props.caller;
  return (
    <span class="mono small">
      {c.route} · request {c.requestId} · from {c.remoteAddress}
      {c.userAgent !== null ? ` · ${c.userAgent}` : ""}
    </span>
  );
}

/**
 * A reliable message's or a task's lineage (`path`, docs/lineage.md), newest change first, 20 a
 * page as the flight timeline: per change the phase or status it left and entered, its cause and
 * the HTTP call that made it; a run of repeats (outage rechecks, watchdog alerts) as one item.
 */
export function HistoryTimeline(props: { path: string; what: string }) {
  const [before, setBefore] = useState<number | undefined>();
  const [lineage] = useAdmin<HistoryLineage>(`${props.path}${query({ limit: 20, before })}`);
  return (
    <section aria-label={`Lineage of ${props.what}`}>
      <h2>Lineage of {props.what}</h2>
      <Loaded load={lineage} what={`Lineage of ${props.what}`} placeholder={<p class="placeholder tall">Loading the lineage…</p>}>
        {(l) => (
          <>
            <p>
              Now <span class="badge">{l.phase ?? l.status}</span>
            </p>
            <ol class="timeline">
              {l.entries.map((e) => {
                const caller = e.cause.caller ?? e.caller ?? null;
                const fields = causeFields(e.cause);
                return (
                  <li key={e.version} class="version" data-testid={`history-${e.version}`}>
                    <h3>
                      {e.from ?? "new"} → {e.to} <span class="muted small">{e.repeats > 1 ? `${e.repeats}× from ${instant(e.firstAt)} to ${instant(e.at)}` : instant(e.at)}</span>
                    </h3>
                    <p class="source">
                      {e.event !== undefined && <span class="mono">{e.event} </span>}
                      <span class="badge">{e.cause.kind}</span>
                      {fields !== "" && ` ${fields}`}
                      {e.detail !== null && <> — {e.detail}</>}
                    </p>
                    {caller !== null && (
                      <p class="source">
                        <Caller caller={caller} />
                      </p>
                    )}
                  </li>
                );
              })}
            </ol>
            <Pager first="Newest" next="Older changes" onFirst={before !== undefined ? () => setBefore(undefined) : undefined} onNext={l.next !== null ? () => setBefore(l.next ?? undefined) : undefined} />
          </>
        )}
      </Loaded>
    </section>
  );
}
