import { useState } from "preact/hooks";
import { adminPost, query } from "../admin-client.js";
import { value } from "../format.js";
import { Loaded } from "../loaded.js";
import { PlaceholderTable } from "../placeholder-table.js";
import { Table } from "../table.js";
import { useAdmin } from "../use-admin.js";
import { OverdueTasks } from "./overdue-tasks.js";
import { HistoryTimeline } from "./history-timeline.js";

type TaskEvent = Readonly<Record<string, unknown>>;
const COLUMNS = ["taskId", "ownerService", "handlerCode", "bizType", "bizId", "status", "lastEventId", "callbackError"] as const;

/**
 * The task service's dead owner events (docs/task-routing.md): the tasks whose callback to the owner
 * failed for good, replayed by task with the operator's name and a reason (the replay audit); and
 * the tasks reported overdue.
 */
export function TasksView() {
  const [events, reload] = useAdmin<{ tasks: readonly TaskEvent[]; next: string | null }>(`/admin/task-events${query({ status: "DEAD", limit: 100 })}`);
  const [operator, setOperator] = useState("");
  const [reason, setReason] = useState("");
  const [note, setNote] = useState<string | undefined>();
  const [shown, setShown] = useState<string | undefined>();
  const replay = async (taskId: string) => {
    const a = await adminPost<{ replayed?: readonly unknown[] }>("/admin/task-events/replay", { taskIds: [taskId], reason: reason.trim(), by: operator.trim() });
    setNote(a.ok ? (a.data.replayed?.length ? `Task ${taskId}: its owner event was sent again.` : `Task ${taskId}: nothing to replay.`) : `${a.error}: ${a.message}`);
    reload();
  };
  const ready = operator.trim() !== "" && reason.trim() !== "";

  return (
    <section aria-labelledby="tasks-title">
      <h1 id="tasks-title">Task events</h1>
      <Loaded load={events} what="Task events" placeholder={<PlaceholderTable columns={5} rows={3} />}>
        {(answer) => {
          const list = answer.tasks ?? [];
          const columns = COLUMNS.filter((c) => list.some((e) => e[c] !== undefined));
          return (
            <>
              <div class="toolbar">
                <label for="task-operator">Operator</label>
                <input id="task-operator" required placeholder="your name" value={operator} onInput={(e) => setOperator(e.currentTarget.value)} />
                <label for="task-reason">Reason</label>
                <input id="task-reason" required placeholder="why replay" value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
              </div>
              {note && (
                <p class="notice" role="status">
                  {note}
                </p>
              )}
              {list.length === 0 ? (
                <p class="muted">No dead task event.</p>
              ) : (
                <Table columns={[...columns, "action"]} wrap>
                  {list.map((e, i) => (
                    <tr key={String(e.taskId ?? i)}>
                      {columns.map((c) => (
                        <td key={c} class="mono">
                          {e[c] === undefined ? "—" : value(e[c])}
                        </td>
                      ))}
                      <td>
                        <button type="button" disabled={!ready || typeof e.taskId !== "string"} onClick={() => void replay(String(e.taskId))}>
                          Replay
                        </button>{" "}
                        <button type="button" disabled={typeof e.taskId !== "string"} aria-pressed={shown === e.taskId} onClick={() => setShown(shown === e.taskId ? undefined : String(e.taskId))}>
                          Lineage
                        </button>
                      </td>
                    </tr>
                  ))}
                </Table>
              )}
            </>
          );
        }}
      </Loaded>
      <OverdueTasks />
      {shown !== undefined && <HistoryTimeline key={shown} path={`/admin/tasks/${encodeURIComponent(shown)}/lineage`} what={`task ${shown}`} />}
    </section>
  );
}
