import type { HistoryCaller, HistoryEntry, HistoryLineage } from "../api-types.js";
import { instant } from "../format.js";
import { Loaded } from "../loaded.js";
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
 * A reliable message's or a task's lineage (`path`, docs/lineage.md), oldest change first: per
 * change the phase or status it left and entered, its cause and the HTTP call that made it.
 */
export function HistoryTimeline(props: { path: string; what: string }) {
  const [lineage] = useAdmin<HistoryLineage>(props.path);
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
                      {e.from ?? "new"} → {e.to} <span class="muted small">{instant(e.at)}</span>
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
          </>
        )}
      </Loaded>
    </section>
  );
}
