import { useState } from "preact/hooks";
import { adminPost, query } from "../admin-client.js";
import type { RequestRecord } from "../api-types.js";
import { instant, value } from "../format.js";
import { Loaded, PlaceholderRows } from "../loaded.js";
import { useAdmin } from "../use-admin.js";

/** The request states an operator still waits on (docs/requests.md); DONE and EXPIRED are final. */
const OPEN = new Set(["REGISTERED", "SENT", "WAITING"]);
const TABS = [
  { id: "open", label: "Open" },
  { id: "DONE", label: "Done" },
  { id: "EXPIRED", label: "Expired" },
] as const;
type Tab = (typeof TABS)[number]["id"];

/** Upstream requests (open, done, expired) and a form to ask upstream for a schedule range. */
export function RequestsView() {
  const [tab, setTab] = useState<Tab>("open");
  const [list, reload] = useAdmin<readonly RequestRecord[]>(`/admin/requests${query({ limit: 100, status: tab === "open" ? undefined : tab })}`);
  const head = (
    <thead>
      <tr>
        <th scope="col">request</th>
        <th scope="col">type</th>
        <th scope="col">asks</th>
        <th scope="col">status</th>
        <th scope="col">by</th>
        <th scope="col">registered</th>
        <th scope="col">deadline</th>
      </tr>
    </thead>
  );
  return (
    <section aria-labelledby="requests-title">
      <h1 id="requests-title">Requests</h1>
      <div class="tabs" role="group" aria-label="Which requests">
        {TABS.map((t) => (
          <button key={t.id} type="button" aria-pressed={tab === t.id} onClick={() => setTab(t.id)}>
            {t.label}
          </button>
        ))}
      </div>
      <div class="table-wrap">
        <Loaded
          load={list}
          what="Requests"
          placeholder={
            <table>
              {head}
              <tbody>
                <PlaceholderRows rows={3} columns={7} />
              </tbody>
            </table>
          }
        >
          {(records) => {
            const shown = tab === "open" ? records.filter((r) => OPEN.has(r.status)) : records;
            return shown.length === 0 ? (
              <p class="muted">No request here.</p>
            ) : (
              <table>
                {head}
                <tbody>
                  {shown.map((r) => (
                    <tr key={r.requestId}>
                      <td class="mono">{r.requestId}</td>
                      <td class="mono">{r.requestType}</td>
                      <td class="mono">{value(r.params)}</td>
                      <td>
                        <span class="badge">{r.status}</span>
                      </td>
                      <td>{r.requestedBy}</td>
                      <td>{instant(r.registeredAt)}</td>
                      <td>{instant(r.deadlineAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            );
          }}
        </Loaded>
      </div>
      <ScheduleRequestForm onCreated={reload} />
    </section>
  );
}

function ScheduleRequestForm(props: { onCreated: () => void }) {
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [operator, setOperator] = useState("");
  const [answer, setAnswer] = useState<{ ok: boolean; text: string } | undefined>();
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="form"
      aria-labelledby="schedule-title"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        const a = await adminPost<RequestRecord>("/admin/requests/schedule", { from, to, ...(operator.trim() ? { operator: operator.trim() } : {}) });
        setBusy(false);
        if (a.ok) {
          setAnswer({ ok: true, text: `Request ${a.data.requestId} is ${a.data.status}.` });
          props.onCreated();
        } else setAnswer({ ok: false, text: a.status === 404 ? "Requests are not enabled on this runner." : `${a.error}: ${a.message}` });
      }}
    >
      <h2 id="schedule-title">Ask upstream for a schedule range</h2>
      <p class="muted small">Airport local time, both ends included (an RQFD; docs/requests.md).</p>
      <div class="fields-row">
        <label>
          From
          <input type="datetime-local" required value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        </label>
        <label>
          To
          <input type="datetime-local" required value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        </label>
        <label>
          Operator
          <input required placeholder="your name" value={operator} onInput={(e) => setOperator(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          Send request
        </button>
      </div>
      {answer && (
        <p class={`notice ${answer.ok ? "ok" : "error"}`} role="status">
          {answer.text}
        </p>
      )}
    </form>
  );
}
