import { useState } from "preact/hooks";
import { adminPost, query } from "../admin-client.js";
import type { RequestRecord } from "../api-types.js";
import { instant, value } from "../format.js";
import { Loaded } from "../loaded.js";
import { PlaceholderTable } from "../placeholder-table.js";
import { Table } from "../table.js";
import { ToggleTabs } from "../toggle-tabs.js";
import { useAdmin } from "../use-admin.js";

/** The request states an operator still waits on (docs/requests.md); DONE and EXPIRED are final. */
const OPEN = new Set(["REGISTERED", "SENT", "WAITING"]);
const TABS = [
  { id: "open", label: "Open" },
  { id: "DONE", label: "Done" },
  { id: "EXPIRED", label: "Expired" },
] as const;
type Tab = (typeof TABS)[number]["id"];
const COLUMNS = ["request", "type", "asks", "status", "by", "registered", "deadline"];

/** Upstream requests (open, done, expired) and a form to ask upstream for a schedule range. */
export function RequestsView() {
  const [tab, setTab] = useState<Tab>("open");
  const [list, reload] = useAdmin<readonly RequestRecord[]>(`/admin/requests${query({ limit: 100, status: tab === "open" ? undefined : tab })}`);
  return (
    <section aria-labelledby="requests-title">
      <h1 id="requests-title">Requests</h1>
      <ToggleTabs label="Which requests" tabs={TABS} selected={tab} onSelect={setTab} />
      <div class="table-wrap">
        <Loaded load={list} what="Requests" placeholder={<PlaceholderTable columns={COLUMNS} rows={3} />}>
          {(records) => {
            const shown = tab === "open" ? records.filter((r) => OPEN.has(r.status)) : records;
            return shown.length === 0 ? (
              <p class="muted">No request here.</p>
            ) : (
              <Table columns={COLUMNS}>
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
              </Table>
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
