import { useState } from "preact/hooks";
import { query } from "../admin-client.js";
import { ERROR_CLASSES, type ProcRecord, type RawMessage } from "../api-types.js";
import { count, dttm, instant } from "../format.js";
import { Loaded, PlaceholderRows } from "../loaded.js";
import { useAdmin, type Load } from "../use-admin.js";
import { href } from "../use-hash-route.js";
import { AuditTrail } from "./audit-trail.js";
import { ReplayPanel } from "./replay-panel.js";

/**
 * Dead letters: the list (filtered by error class), one record — its error history and raw XML,
 * shown as text — with the replay preflight and apply, and the audit trail of replays.
 */
export function DeadLettersView(props: { selected: string | undefined }) {
  const [errorClass, setErrorClass] = useState("");
  const [list, reloadList] = useAdmin<readonly ProcRecord[]>(`/admin/dead-letters${query({ limit: 100, errorClass })}`);
  const [auditTick, setAuditTick] = useState(0);
  const msgId = props.selected !== undefined && /^\d+$/.test(props.selected) ? Number(props.selected) : undefined;

  return (
    <section aria-labelledby="dead-title">
      <h1 id="dead-title">Dead letters</h1>
      <div class="toolbar">
        <label for="dead-class">Error class</label>
        <select id="dead-class" data-testid="dead-class" value={errorClass} onChange={(e) => setErrorClass(e.currentTarget.value)}>
          <option value="">all classes</option>
          {ERROR_CLASSES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <button type="button" onClick={reloadList}>
          Refresh
        </button>
      </div>
      <div class="split">
        <DeadList load={list} selected={msgId} />
        <div class="detail">
          {msgId === undefined ? (
            <p class="muted">Select a dead letter to see its record, raw XML and replay.</p>
          ) : (
            <DeadLetter
              key={msgId}
              msgId={msgId}
              onReplayed={() => {
                reloadList();
                setAuditTick((t) => t + 1);
              }}
            />
          )}
        </div>
      </div>
      <AuditTrail key={auditTick} />
    </section>
  );
}

function DeadList(props: { load: Load<readonly ProcRecord[]>; selected: number | undefined }) {
  const head = (
    <thead>
      <tr>
        <th scope="col">msg</th>
        <th scope="col">type</th>
        <th scope="col">class</th>
        <th scope="col">reason</th>
      </tr>
    </thead>
  );
  const placeholder = (
    <table>
      {head}
      <tbody>
        <PlaceholderRows rows={5} columns={4} />
      </tbody>
    </table>
  );
  return (
    <div class="list table-wrap">
      <Loaded load={props.load} what="Dead letters" placeholder={placeholder}>
        {(records) =>
          records.length === 0 ? (
            <p class="muted">No dead letters.</p>
          ) : (
            <table>
              {head}
              <tbody>
                {records.map((r) => (
                  <tr key={r.msgId} data-testid={`dead-row-${r.msgId}`} class={r.msgId === props.selected ? "selected" : undefined}>
                    <td class="num">
                      <a href={href("dead", r.msgId)} aria-current={r.msgId === props.selected ? "true" : undefined}>
                        {r.msgId}
                      </a>
                    </td>
                    <td class="mono nowrap">{r.meta ? `${r.meta.type}/${r.meta.styp}` : "—"}</td>
                    <td>
                      <span class="badge">{r.errorClass ?? "—"}</span>
                    </td>
                    <td class="reason" title={r.reason ?? ""}>
                      {r.reason ?? "—"}
                    </td>
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

function DeadLetter(props: { msgId: number; onReplayed: () => void }) {
  const [record, reloadRecord] = useAdmin<ProcRecord>(`/admin/messages/${props.msgId}`);
  const [raw] = useAdmin<RawMessage>(`/admin/messages/${props.msgId}/raw`);
  return (
    <article aria-labelledby="record-title">
      <h2 id="record-title">Message {props.msgId}</h2>
      <Loaded load={record} what={`Message ${props.msgId}`}>
        {(r) => (
          <>
            <dl class="facts">
              <dt>status</dt>
              <dd>
                <span class="badge">{r.status}</span>
              </dd>
              <dt>class</dt>
              <dd>{r.errorClass ?? "—"}</dd>
              <dt>reason</dt>
              <dd class="reason-full">{r.reason ?? "—"}</dd>
              <dt>type</dt>
              <dd class="mono">{r.meta ? `${r.meta.type}/${r.meta.styp} from ${r.meta.sndr} #${r.meta.seqn}` : "—"}</dd>
              <dt>DTTM</dt>
              <dd>{dttm(r.meta?.dttm)}</dd>
              <dt>attempts</dt>
              <dd class="num-inline">{count(r.attempts)}</dd>
              <dt>received</dt>
              <dd>{instant(r.receivedAt)}</dd>
              <dt>identity</dt>
              <dd class="mono">{r.identityKey ?? "—"}</dd>
            </dl>
            <h3>Error history</h3>
            {r.history.length === 0 ? (
              <p class="muted">No errors recorded.</p>
            ) : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">at</th>
                      <th scope="col" class="num">attempt</th>
                      <th scope="col">class</th>
                      <th scope="col">reason</th>
                    </tr>
                  </thead>
                  <tbody>
                    {r.history.map((h, i) => (
                      <tr key={i}>
                        <td>{instant(h.at)}</td>
                        <td class="num">{h.attempt}</td>
                        <td>{h.errorClass}</td>
                        <td class="reason-full">{h.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </Loaded>
      <ReplayPanel
        msgId={props.msgId}
        onReplayed={() => {
          reloadRecord();
          props.onReplayed();
        }}
      />
      <h3>Raw XML</h3>
      <Loaded load={raw} what="Raw XML">
        {(m) => (
          <pre class="xml" data-testid="raw-xml" tabIndex={0}>
            {m.xml}
          </pre>
        )}
      </Loaded>
    </article>
  );
}
