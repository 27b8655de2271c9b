import { serverNow } from "../admin-client.js";
import type { PipelineStatus, ProcStatus, RunnerPresence, StatusSample } from "../api-types.js";
import { count, DASH, duration, instant } from "../format.js";
import { Loaded } from "../loaded.js";
import { PlaceholderRows, PlaceholderTable } from "../placeholder-table.js";
import { Sparkline } from "../sparkline.js";
import { num, Table, type Column } from "../table.js";
import { useAdmin, type Load } from "../use-admin.js";

const REFRESH_MS = 5_000;
/** The sparklines' window: one point a minute. */
const HISTORY_MINUTES = 60;
const STATUSES: readonly ProcStatus[] = ["PENDING", "FAILED", "SUCCEEDED", "SKIPPED", "DEAD"];

/**
 * The pipeline at a glance, refreshed every 5 s: head age, backlog, throughput, delivery lag,
 * dead letters and backfill debt as cards with the last hour's sparkline; the backlog by status,
 * delivery per target, and the runners. Cards and tables keep their size while loading.
 */
export function OverviewView() {
  const [status] = useAdmin<PipelineStatus>("/admin/status", REFRESH_MS);
  const [history] = useAdmin<{ samples: readonly StatusSample[] }>(`/admin/status/history?minutes=${HISTORY_MINUTES}`, REFRESH_MS * 6);
  const [runners] = useAdmin<{ runners: readonly RunnerPresence[] }>("/admin/runners", REFRESH_MS);
  const now = status.state === "ok" ? status.at : serverNow();
  const s = status.state === "ok" ? status.data : undefined;
  const samples = history.state === "ok" ? history.data.samples : [];
  const series = (pick: (x: StatusSample) => number | null) => samples.map(pick);
  // The current minute is still counting: throughput is the last whole minute's.
  const last = [...samples].reverse().find((x) => x.at + 60_000 <= now) ?? samples.at(-1);
  const backlog = s ? s.byStatus.PENDING + s.byStatus.FAILED : undefined;
  const lag = s ? deliveryLag(s, now) : undefined;

  return (
    <section aria-labelledby="overview-title">
      <h1 id="overview-title">Overview</h1>
      {status.state === "error" || status.state === "absent" ? <Loaded load={status} what="Pipeline status" children={() => null} /> : null}
      <div class="cards">
        <Card label="Head age" value={s ? (s.head ? duration(now - s.head.receivedAt) : "idle") : DASH} hint={s?.head ? `msg ${s.head.msgId} · ${s.head.status}` : "no unfinished message"} spark={series((x) => x.headAgeMs)} format={duration} />
        <Card label="Backlog" value={count(backlog)} hint="pending + failed messages" spark={series((x) => x.backlog)} format={(n) => `${count(n)} msgs`} />
        <Card label="Throughput" value={last ? `${count(last.processed)}/min` : DASH} hint={last ? `${count(last.sent)} events sent/min` : "last minute"} spark={series((x) => x.processed)} format={(n) => `${count(n)}/min`} />
        <Card label="Delivery lag" value={lag === undefined ? DASH : lag === null ? "none" : duration(lag)} hint="oldest pending event" spark={series((x) => x.deliveryLagMs)} format={duration} />
        <Card label="Dead letters" value={count(s?.deadLetters)} hint="kept for review" spark={series((x) => x.dead)} tone={s && s.deadLetters > 0 ? "warn" : undefined} format={(n) => `${count(n)} msgs`} />
        <Card label="Backfill debt" value={count(s?.backfillDebt)} hint="mailbox backfills to do" spark={series((x) => x.backfillDebt)} format={(n) => `${count(n)} rows`} />
      </div>
      {history.state === "absent" && <p class="muted small">Sparklines: the status history is not available on this runner.</p>}

      <div class="grid-2">
        <section aria-labelledby="backlog-title">
          <h2 id="backlog-title">Messages by status</h2>
          <Table class="fixed" wrap>
            {STATUSES.map((st) => (
              <tr key={st}>
                <th scope="row">{st}</th>
                <td class="num">{count(s?.byStatus[st])}</td>
              </tr>
            ))}
          </Table>
        </section>
        <section aria-labelledby="delivery-title">
          <h2 id="delivery-title">Delivery per target</h2>
          <DeliveryTable status={s} now={now} />
        </section>
      </div>

      <section aria-labelledby="runners-title">
        <h2 id="runners-title">Runners</h2>
        <RunnersTable load={runners} />
      </section>
    </section>
  );
}

function Card(props: { label: string; value: string; hint: string; spark: readonly (number | null)[]; format: (n: number) => string; tone?: "warn" | undefined }) {
  return (
    <div class={`card${props.tone ? ` ${props.tone}` : ""}`}>
      <div class="card-label">{props.label}</div>
      <div class="card-value">{props.value}</div>
      <div class="card-hint">{props.hint}</div>
      <Sparkline values={props.spark} label={`${props.label}, last ${HISTORY_MINUTES} minutes`} format={props.format} minutes={HISTORY_MINUTES} />
    </div>
  );
}

/** The age of the oldest pending event over all targets; null when nothing is pending. */
function deliveryLag(s: PipelineStatus, now: number): number | null {
  const oldest = Object.values(s.delivery)
    .map((d) => d.oldestPendingAt)
    .filter((t): t is number => t !== null);
  return oldest.length === 0 ? null : now - Math.min(...oldest);
}

const DELIVERY_COLUMNS: readonly Column[] = ["target", num("pending"), num("lag"), num("dead")];

function DeliveryTable(props: { status: PipelineStatus | undefined; now: number }) {
  const targets = props.status ? Object.entries(props.status.delivery) : undefined;
  return (
    <Table columns={DELIVERY_COLUMNS} wrap>
      {targets === undefined ? (
        <PlaceholderRows rows={2} columns={DELIVERY_COLUMNS.length} />
      ) : targets.length === 0 ? (
        <tr>
          <td colSpan={4} class="muted">
            Nothing pending or dead: every event is delivered.
          </td>
        </tr>
      ) : (
        targets.map(([target, d]) => (
          <tr key={target}>
            <th scope="row" class="mono">{target}</th>
            <td class="num">{count(d.pending)}</td>
            <td class="num">{d.oldestPendingAt === null ? DASH : duration(props.now - d.oldestPendingAt)}</td>
            <td class={`num${d.dead > 0 ? " warn-text" : ""}`}>{count(d.dead)}</td>
          </tr>
        ))
      )}
    </Table>
  );
}

const RUNNER_COLUMNS: readonly Column[] = ["role", "runner", "host", num("pid"), "started", "last seen"];

function RunnersTable(props: { load: Load<{ runners: readonly RunnerPresence[] }> }) {
  return (
    <Loaded load={props.load} what="Runners" placeholder={<PlaceholderTable columns={RUNNER_COLUMNS} rows={2} wrap />}>
      {({ runners }) => (
        <Table columns={RUNNER_COLUMNS} wrap>
          {runners.map((r) => (
            <tr key={r.runnerId} class={r.stale ? "muted" : undefined}>
              <td>
                <span class={`badge ${r.role}`}>{r.role}</span>
                {r.stale ? " (stale)" : ""}
              </td>
              <td class="mono">{r.runnerId}</td>
              <td>{r.host}</td>
              <td class="num">{r.pid}</td>
              <td>{instant(r.startedAt)}</td>
              <td>{instant(r.seenAt)}</td>
            </tr>
          ))}
        </Table>
      )}
    </Loaded>
  );
}
