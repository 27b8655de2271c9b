import { instant } from "../format.js";
import { Loaded } from "../loaded.js";
import { PlaceholderTable } from "../placeholder-table.js";
import { Table } from "../table.js";
import { query } from "../admin-client.js";
import { useAdmin } from "../use-admin.js";

interface OverdueTask {
  readonly taskId: string;
  readonly ownerService: string;
  readonly handlerCode: string;
  readonly bizType: string;
  readonly status: string;
  readonly externalTaskNo: string | null;
  readonly deadlineAt: number | null;
  readonly lastProgressAt: number | null;
  readonly deadlineOverdueAt: number | null;
  readonly heartbeatOverdueAt: number | null;
}

const COLUMNS = ["taskId", "owner", "handlerCode", "status", "externalTaskNo", "overdue", "deadline", "last progress"] as const;

/**
 * The tasks reported overdue (docs/task-routing.md "Deadlines and heartbeats"): DISPATCHED or
 * EXECUTING past their deadline or silent past their heartbeat timeout, each sent a TASK_OVERDUE.
 * Their owners decide (cancel, wait); nothing to do here but look.
 */
export function OverdueTasks() {
  const [tasks] = useAdmin<{ tasks: readonly OverdueTask[]; next: string | null }>(`/admin/task-events${query({ status: "OVERDUE", limit: 100 })}`);
  return (
    <section aria-labelledby="overdue-title">
      <h2 id="overdue-title">Overdue tasks</h2>
      <Loaded load={tasks} what="Overdue tasks" placeholder={<PlaceholderTable columns={5} rows={2} />}>
        {(answer) =>
          (answer.tasks ?? []).length === 0 ? (
            <p class="muted">No overdue task.</p>
          ) : (
            <Table columns={[...COLUMNS]} wrap>
              {answer.tasks.map((t) => (
                <tr key={t.taskId}>
                  <td class="mono">{t.taskId}</td>
                  <td class="mono">{t.ownerService}</td>
                  <td class="mono">{t.handlerCode}</td>
                  <td class="mono">{t.status}</td>
                  <td class="mono">{t.externalTaskNo ?? "—"}</td>
                  <td class="mono">{[t.deadlineOverdueAt !== null ? "DEADLINE" : null, t.heartbeatOverdueAt !== null ? "HEARTBEAT" : null].filter(Boolean).join(", ")}</td>
                  <td class="mono">{t.deadlineAt === null ? "—" : instant(t.deadlineAt)}</td>
                  <td class="mono">{t.lastProgressAt === null ? "—" : instant(t.lastProgressAt)}</td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </section>
  );
}
