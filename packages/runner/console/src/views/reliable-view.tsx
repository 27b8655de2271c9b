import { useState } from "preact/hooks";
import { adminPost, query } from "../admin-client.js";
import type { ReliableMessage, ReliableQueue } from "../api-types.js";
import { count, instant } from "../format.js";
import { Loaded } from "../loaded.js";
import { PlaceholderTable } from "../placeholder-table.js";
import { num, Table, type Column } from "../table.js";
import { ToggleTabs } from "../toggle-tabs.js";
import { useAdmin } from "../use-admin.js";
import { HistoryTimeline } from "./history-timeline.js";

const FILTERS = [
  { id: "dead", label: "Dead", params: { dead: "true" } },
  { id: "waiting", label: "Waiting for confirmation", params: { status: "WAITING_CONFIRM" } },
  { id: "sending", label: "Sending", params: { status: "SENDING", dead: "false" } },
] as const;
const QUEUE_COLUMNS: readonly Column[] = ["queue", num("waiting for confirmation"), num("sending"), num("dead"), "action"];
const MESSAGE_COLUMNS: readonly Column[] = ["message", "queue", "status", num("sends"), "last sent", "action"];

/** The reliable-message service (docs/reliable-message.md): queues with waiting and dead counts, messages, resend. */
export function ReliableView() {
  const [queues, reloadQueues] = useAdmin<{ queues: readonly ReliableQueue[] }>("/admin/reliable-messages/queues");
  const [filter, setFilter] = useState<(typeof FILTERS)[number]["id"]>("dead");
  const [messages, reloadMessages] = useAdmin<{ items: readonly ReliableMessage[]; total: number }>(
    `/admin/reliable-messages${query({ size: 50, ...FILTERS.find((f) => f.id === filter)!.params })}`,
  );
  const [note, setNote] = useState<string | undefined>();
  const [shown, setShown] = useState<string | undefined>();
  const act = async (path: string, done: string) => {
    const a = await adminPost<unknown>(path, {});
    setNote(a.ok ? done : `${a.error}: ${a.message}`);
    reloadQueues();
    reloadMessages();
  };

  return (
    <section aria-labelledby="reliable-title">
      <h1 id="reliable-title">Reliable messages</h1>
      {note && (
        <p class="notice" role="status">
          {note}
        </p>
      )}
      <h2>Queues</h2>
      <Loaded load={queues} what="Reliable-message queues">
        {(q) => (
          <Table columns={QUEUE_COLUMNS} class="cards-narrow" wrap>
            {q.queues.map((r) => (
              <tr key={r.queue} data-testid={`reliable-queue-${r.queue}`}>
                <td class="mono" data-label="queue">
                  {r.queue}
                </td>
                <td class="num" data-label="waiting for confirmation">
                  {r.phases ? count(r.phases["WAITING_CONFIRM"] ?? 0) : `${count(r.waiting)} (with sending)`}
                </td>
                <td class="num" data-label="sending">
                  {r.phases ? count(r.phases["SENDING"] ?? 0) : "—"}
                </td>
                <td class="num" data-label="dead">
                  {count(r.dead)}
                </td>
                <td data-label="action">
                  <button type="button" disabled={r.dead === 0} onClick={() => void act(`/admin/reliable-messages/queues/${encodeURIComponent(r.queue)}/replay-dead`, `Dead messages of ${r.queue} sent again.`)}>
                    Resend dead
                  </button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Loaded>
      <h2>Messages</h2>
      <ToggleTabs label="Which messages" tabs={FILTERS} selected={filter} onSelect={setFilter} />
      <Loaded load={messages} what="Reliable messages" placeholder={<PlaceholderTable columns={MESSAGE_COLUMNS.length} rows={3} />}>
        {(page) =>
          page.items.length === 0 ? (
            <p class="muted">No message here.</p>
          ) : (
            <div class="table-wrap">
              <Table columns={MESSAGE_COLUMNS} class="cards-narrow">
                {page.items.map((m) => (
                  <tr key={m.messageId}>
                    <td class="mono" data-label="message">
                      {m.messageId}
                    </td>
                    <td class="mono" data-label="queue">
                      {m.consumerQueue}
                    </td>
                    <td data-label="status">
                      <span class="badge">{m.status}</span>
                      {m.dead ? <span class="badge warn">dead</span> : null}
                    </td>
                    <td class="num" data-label="sends">
                      {m.sendCount}
                    </td>
                    <td data-label="last sent">{instant(m.lastSentAt)}</td>
                    <td data-label="action">
                      <button type="button" onClick={() => void act(`/admin/reliable-messages/${encodeURIComponent(m.messageId)}/resend`, `Message ${m.messageId} sent again.`)}>
                        Resend
                      </button>{" "}
                      <button type="button" aria-pressed={shown === m.messageId} onClick={() => setShown(shown === m.messageId ? undefined : m.messageId)}>
                        Lineage
                      </button>
                    </td>
                  </tr>
                ))}
              </Table>
              <p class="muted small">{count(page.total)} in all; the first 50 shown.</p>
            </div>
          )
        }
      </Loaded>
      {shown !== undefined && <HistoryTimeline key={shown} path={`/admin/reliable-messages/${encodeURIComponent(shown)}/lineage`} what={`message ${shown}`} />}
    </section>
  );
}
