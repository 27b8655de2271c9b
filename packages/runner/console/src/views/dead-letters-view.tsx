import { useEffect, useState } from "preact/hooks";
import { query } from "../admin-client.js";
import { ERROR_CLASSES, type DeadLetterGroup, type ProcRecord, type RawMessage } from "../api-types.js";
import { count, dttm, instant } from "../format.js";
import { Loaded } from "../loaded.js";
import { reasonText } from "../message-end.js";
import { openRow } from "../open-row.js";
import { PlaceholderTable } from "../placeholder-table.js";
import { num, Table, TableHead } from "../table.js";
import { useReveal } from "../use-reveal.js";
import { useAdmin, type Load } from "../use-admin.js";
import { href } from "../use-hash-route.js";
import { AuditTrail } from "./audit-trail.js";
import { ReplayPanel } from "./replay-panel.js";

/**
 * Dead letters, by message (filtered by error class) or grouped by class and reason with counts;
 * one record — its error history and raw XML, shown as text — or one group, each with the replay
 * preflight and apply; and the audit trail of replays. Routes: `#/dead/<msgId>`,
 * `#/dead/groups`, `#/dead/groups/<n>` (the n-th group as listed).
 */
export function DeadLettersView(props: { route: readonly string[] }) {
  const grouped = props.route[0] === "groups";
  const [errorClass, setErrorClass] = useState("");
  const [list, reloadList] = useAdmin<readonly ProcRecord[]>(grouped ? null : `/admin/dead-letters${query({ limit: 100, errorClass })}`);
  const [groups, reloadGroups] = useAdmin<{ groups: readonly DeadLetterGroup[] }>(grouped ? "/admin/dead-letters/groups" : null);
  const [auditTick, setAuditTick] = useState(0);
  const msgId = !grouped && props.route[0] !== undefined && /^\d+$/.test(props.route[0]) ? Number(props.route[0]) : undefined;
  const groupIndex = grouped && props.route[1] !== undefined && /^\d+$/.test(props.route[1]) ? Number(props.route[1]) : undefined;
  const listed = groupIndex !== undefined && groups.state === "ok" ? groups.data.groups[groupIndex] : undefined;
  // The group as it was when opened: a replay reloads the list (the group leaves it), while the
  // detail keeps showing what was replayed and how each message ended.
  const [pinned, setPinned] = useState<{ index: number; group: DeadLetterGroup } | undefined>();
  useEffect(() => {
    if (groupIndex === undefined) setPinned(undefined);
    else if (listed !== undefined && pinned?.index !== groupIndex) setPinned({ index: groupIndex, group: listed });
  }, [groupIndex, listed, pinned]);
  const group = pinned?.index === groupIndex ? pinned?.group : undefined;
  const detail = useReveal<HTMLDivElement>(grouped ? groupIndex : msgId);
  const replayed = () => {
    if (grouped) reloadGroups();
    else reloadList();
    setAuditTick((t) => t + 1);
  };

  return (
    <section aria-labelledby="dead-title">
      <h1 id="dead-title">Dead letters</h1>
      <div class="toolbar">
        <div class="tabs" role="group" aria-label="How to list">
          <a class="tab" href={href("dead")} aria-current={grouped ? undefined : "page"} data-testid="dead-by-message">
            By message
          </a>
          <a class="tab" href={href("dead", "groups")} aria-current={grouped ? "page" : undefined} data-testid="dead-by-group">
            By class and reason
          </a>
        </div>
        {!grouped && (
          <>
            <label for="dead-class">Error class</label>
            <select id="dead-class" data-testid="dead-class" value={errorClass} onChange={(e) => setErrorClass(e.currentTarget.value)}>
              <option value="">all classes</option>
              {ERROR_CLASSES.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </>
        )}
        <button type="button" onClick={grouped ? reloadGroups : reloadList}>
          Refresh
        </button>
      </div>
      <div class="split">
        {grouped ? <GroupList load={groups} selected={listed !== undefined && group !== undefined && sameIds(listed, group) ? groupIndex : undefined} /> : <DeadList load={list} selected={msgId} />}
        <div class="detail" ref={detail}>
          {grouped ? (
            group === undefined ? (
              <p class="muted">Select a group to preview and replay its messages as one action.</p>
            ) : (
              <GroupDetail key={`${groupIndex}:${group.msgIds.join(",")}`} group={group} onReplayed={replayed} />
            )
          ) : msgId === undefined ? (
            <p class="muted">Select a dead letter to see its record, raw XML and replay.</p>
          ) : (
            <DeadLetter key={msgId} msgId={msgId} onReplayed={replayed} />
          )}
        </div>
      </div>
      <AuditTrail key={auditTick} />
    </section>
  );
}

const DEAD_COLUMNS = ["msg", "type", "class", "reason"];

function DeadList(props: { load: Load<readonly ProcRecord[]>; selected: number | undefined }) {
  return (
    <div class="list table-wrap">
      <Loaded load={props.load} what="Dead letters" placeholder={<PlaceholderTable columns={DEAD_COLUMNS} rows={5} />}>
        {(records) =>
          records.length === 0 ? (
            <p class="muted">No dead letters.</p>
          ) : (
            <Table columns={DEAD_COLUMNS} class="rows cards-narrow">
              {records.map((r) => (
                <tr key={r.msgId} data-testid={`dead-row-${r.msgId}`} class={r.msgId === props.selected ? "selected" : undefined} onClick={openRow(href("dead", r.msgId))}>
                  <td class="num" data-label="msg">
                    <a href={href("dead", r.msgId)} aria-current={r.msgId === props.selected ? "true" : undefined}>
                      {r.msgId}
                    </a>
                  </td>
                  <td class="mono nowrap" data-label="type">
                    {r.meta ? `${r.meta.type}/${r.meta.styp}` : "—"}
                  </td>
                  <td data-label="class">
                    <span class="badge">{r.errorClass ?? "—"}</span>
                  </td>
                  <td class="reason" data-label="reason">
                    {r.reason ?? "—"}
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </div>
  );
}

/** The groups under one heading per class (with its total), each reason with its count. */
function GroupList(props: { load: Load<{ groups: readonly DeadLetterGroup[] }>; selected: number | undefined }) {
  return (
    <div class="list table-wrap">
      <Loaded load={props.load} what="Dead-letter groups" placeholder={<p class="placeholder tall">Loading the groups…</p>}>
        {({ groups }) =>
          groups.length === 0 ? (
            <p class="muted">No dead letters.</p>
          ) : (
            <table class="rows cards-narrow" data-testid="dead-groups">
              <TableHead columns={["reason", num("messages")]} />
              {classesOf(groups).map(([errorClass, members]) => (
                <tbody key={errorClass}>
                  <tr class="group-head">
                    <th scope="rowgroup" colSpan={2}>
                      <span class="badge">{errorClass}</span> {count(members.reduce((n, m) => n + m.group.count, 0))} message{members.length === 1 && members[0]!.group.count === 1 ? "" : "s"}
                      {members.length > 1 ? `, ${members.length} reasons` : ""}
                    </th>
                  </tr>
                  {members.map(({ group, index }) => (
                    <tr key={index} data-testid={`dead-group-${index}`} class={index === props.selected ? "selected" : undefined} onClick={openRow(href("dead", "groups", index))}>
                      <td class="reason" data-label="reason">
                        <a href={href("dead", "groups", index)} aria-current={index === props.selected ? "true" : undefined}>
                          {group.reason ?? "no reason recorded"}
                        </a>
                      </td>
                      <td class="num" data-label="messages">
                        {count(group.count)}
                      </td>
                    </tr>
                  ))}
                </tbody>
              ))}
            </table>
          )
        }
      </Loaded>
    </div>
  );
}

const sameIds = (a: DeadLetterGroup, b: DeadLetterGroup): boolean => a.msgIds.join(",") === b.msgIds.join(",");

/** The groups by class, in the route's order, each with its index in the route's list. */
function classesOf(groups: readonly DeadLetterGroup[]): [string, { group: DeadLetterGroup; index: number }[]][] {
  const byClass = new Map<string, { group: DeadLetterGroup; index: number }[]>();
  groups.forEach((group, index) => {
    const key = group.errorClass ?? "no class";
    byClass.set(key, [...(byClass.get(key) ?? []), { group, index }]);
  });
  return [...byClass];
}

function GroupDetail(props: { group: DeadLetterGroup; onReplayed: () => void }) {
  const { group } = props;
  return (
    <article aria-labelledby="group-title">
      <h2 id="group-title">
        {count(group.count)} dead letter{group.count === 1 ? "" : "s"} <span class="badge">{group.errorClass ?? "no class"}</span>
      </h2>
      <dl class="facts">
        <dt>reason</dt>
        <dd class="reason-full">{group.reason ?? "—"}</dd>
        {reasonText(group.reason) !== group.reason && (
          <>
            <dt>meaning</dt>
            <dd>{reasonText(group.reason)}</dd>
          </>
        )}
        <dt>messages</dt>
        <dd class="mono reason-full">
          {group.msgIds.map((id, i) => (
            <span key={id}>
              {i > 0 ? ", " : ""}
              <a href={href("dead", id)}>{id}</a>
            </span>
          ))}
          {group.msgIds.length < group.count ? ` … (the first ${group.msgIds.length} of ${count(group.count)}; the replay takes these)` : ""}
        </dd>
      </dl>
      <ReplayPanel msgIds={group.msgIds} onReplayed={props.onReplayed} />
    </article>
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
              {r.reason !== null && reasonText(r.reason) !== r.reason && (
                <>
                  <dt>meaning</dt>
                  <dd>{reasonText(r.reason)}</dd>
                </>
              )}
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
              <Table columns={["at", num("attempt"), "class", "reason"]} wrap>
                {r.history.map((h, i) => (
                  <tr key={i}>
                    <td>{instant(h.at)}</td>
                    <td class="num">{h.attempt}</td>
                    <td>{h.errorClass}</td>
                    <td class="reason-full">{h.reason}</td>
                  </tr>
                ))}
              </Table>
            )}
          </>
        )}
      </Loaded>
      <ReplayPanel
        msgIds={[props.msgId]}
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
