import { useEffect, useState } from "preact/hooks";
import { adminGet, adminPost } from "../admin-client.js";
import type { MessageEnd, ReplayConflict, ReplayPreviewAnswer, ReplayPreviewItem, ReplayResult, VersionGuard } from "../api-types.js";
import { FieldDiffTable } from "../field-diff-table.js";
import { END_STATUSES, endText, predictionText, reasonText } from "../message-end.js";
import { num, Table } from "../table.js";

const OPERATOR_KEY = "msgx.console.operator";

type Outcome =
  | { readonly kind: "replayed"; readonly result: ReplayResult }
  | { readonly kind: "conflict"; readonly conflict: ReplayConflict }
  | { readonly kind: "refused"; readonly status: number; readonly message: string };

/** How often the result box reads the replayed messages until they end, and how many it follows. */
const FOLLOW_EVERY_MS = 1_000;
const FOLLOW_AT_MOST = 50;

/**
 * Replay of one message or a group, preflight first: "Preview replay" is a dry run that runs the
 * pump's own decision against the current state (stale DTTM, duplicate identity, no flight) and
 * shows how each message would end, what applying it now would change on each flight or
 * reference key (before → after), which messages are not eligible, and the version guard;
 * "Replay" sends the guard back with the operator's name, so a key changed since the preview is
 * refused (409) and nothing is written. The result then follows the messages to their real end.
 */
export function ReplayPanel(props: { msgIds: readonly number[]; onReplayed: () => void }) {
  const { msgIds } = props;
  const single = msgIds.length === 1 ? msgIds[0] : undefined;
  const [operator, setOperator] = useState(() => sessionStorage.getItem(OPERATOR_KEY) ?? "");
  const [preview, setPreview] = useState<ReplayPreviewAnswer | undefined>();
  const [previewError, setPreviewError] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [busy, setBusy] = useState(false);
  const eligible = preview?.preview.filter((p) => p.eligible) ?? [];
  // After a replay or a conflict the preview is spent: a new one gives the current diff and guard.
  const canApply = eligible.length > 0 && operator.trim() !== "" && !busy && outcome === undefined;

  const runPreview = async () => {
    setBusy(true);
    setOutcome(undefined);
    const a = await adminPost<ReplayPreviewAnswer>("/admin/replay", { msgIds, dryRun: true });
    setBusy(false);
    if (a.ok) {
      setPreview(a.data);
      setPreviewError(undefined);
    } else {
      setPreview(undefined);
      setPreviewError(`${a.error}: ${a.message}`);
    }
  };

  const apply = async () => {
    if (!preview || operator.trim() === "") return;
    setBusy(true);
    sessionStorage.setItem(OPERATOR_KEY, operator.trim());
    const a = await adminPost<ReplayResult>("/admin/replay", { msgIds: eligible.map((p) => p.msgId), operator: operator.trim(), ...(preview.expect ? { expect: preview.expect } : {}) });
    setBusy(false);
    if (a.ok) {
      setOutcome({ kind: "replayed", result: a.data });
      props.onReplayed();
    } else if (a.status === 409) setOutcome({ kind: "conflict", conflict: (a.body ?? { error: a.error, message: a.message }) as ReplayConflict });
    else setOutcome({ kind: "refused", status: a.status, message: `${a.error}: ${a.message}` });
  };

  return (
    <section class="replay" aria-labelledby="replay-title">
      <h3 id="replay-title">Replay</h3>
      {/* The operator is required to apply, not to preview: the browser's own check would block the preview. */}
      <form
        class="toolbar"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void runPreview();
        }}
      >
        <label for="replay-operator">Operator</label>
        <input
          id="replay-operator"
          data-testid="operator"
          required
          autocomplete="name"
          placeholder="your name"
          value={operator}
          onInput={(e) => setOperator(e.currentTarget.value)}
        />
        <button type="submit" data-testid="preview-replay" disabled={busy}>
          Preview replay
        </button>
        <button type="button" class="primary" data-testid="apply-replay" disabled={!canApply} onClick={() => void apply()}>
          {single !== undefined || eligible.length <= 1 ? "Replay" : `Replay ${eligible.length} messages`}
        </button>
      </form>
      <p class="muted small">
        {preview === undefined
          ? "Preview first: it shows what the replay would change, and the versions it will insist on."
          : operator.trim() === ""
            ? "Give your name as operator to replay (it goes to the audit trail)."
            : ""}
      </p>
      {previewError !== undefined && (
        <p class="notice error" role="alert">
          Preview failed: {previewError}
        </p>
      )}
      {preview !== undefined && (
        <div data-testid="replay-diff" class="preview" aria-live="polite">
          {single !== undefined ? (
            <SinglePreview item={preview.preview.find((p) => p.msgId === single)} msgId={single} />
          ) : (
            <GroupPreview items={preview.preview} asked={msgIds.length} />
          )}
          <GuardTable guard={preview.expect} />
        </div>
      )}
      {outcome !== undefined && <OutcomeView outcome={outcome} onPreviewAgain={() => void runPreview()} />}
    </section>
  );
}

function SinglePreview(props: { item: ReplayPreviewItem | undefined; msgId: number }) {
  const { item } = props;
  if (item === undefined) return <p class="notice">The preview does not list message {props.msgId}.</p>;
  return (
    <>
      <p data-testid="replay-prediction">
        {item.eligible ? <span class="badge ok">eligible</span> : <span class="badge warn">not eligible</span>}{" "}
        {item.refusal ?? (item.outcome ? `Replayed now, it ${predictionText(item.outcome)}.` : `${item.status}, ${item.errorClass ?? "no class"}: goes back to PENDING and is processed again.`)}
      </p>
      <Changes item={item} />
    </>
  );
}

function Changes(props: { item: ReplayPreviewItem }) {
  const { item } = props;
  if (!item.eligible) return null;
  if (item.changes === undefined) return <p class="muted">This runner's preview has no field diff.</p>;
  if (item.changes.length === 0) return <p class="muted">Applying it now would change no flight or reference key.</p>;
  return (
    <>
      {item.changes.map((c) => (
        <div key={`${c.kind}:${c.key}`} class="change">
          <h4>
            {c.kind} <span class="mono">{c.key}</span>: version {c.currentVersion ?? "none"} → {c.nextVersion}
          </h4>
          <FieldDiffTable changes={c.changes} />
        </div>
      ))}
    </>
  );
}

/** A group's preview: how many would end how, and the ineligible ones with why; each message's changes folded. */
function GroupPreview(props: { items: readonly ReplayPreviewItem[]; asked: number }) {
  const eligible = props.items.filter((p) => p.eligible);
  const refused = props.items.filter((p) => !p.eligible);
  const tally = tallyOf(eligible.map((p) => (p.outcome ? predictionText(p.outcome) : "goes back to PENDING")));
  return (
    <>
      <p data-testid="replay-prediction">
        <strong>{eligible.length}</strong> of {props.asked} message{props.asked === 1 ? "" : "s"} eligible
        {refused.length > 0 ? `, ${refused.length} not eligible` : ""}.
      </p>
      {tally.length > 0 && <Tally texts={tally} />}
      {refused.length > 0 && (
        <>
          <h4>Not eligible (not replayed)</h4>
          <ul class="tally">
            {refused.map((p) => (
              <li key={p.msgId}>
                <span class="mono">{p.msgId}</span>: {p.refusal ?? "not eligible"}
              </li>
            ))}
          </ul>
        </>
      )}
      {eligible.some((p) => (p.changes?.length ?? 0) > 0) && (
        <details>
          <summary>Field changes per message</summary>
          {eligible
            .filter((p) => (p.changes?.length ?? 0) > 0)
            .map((p) => (
              <div key={p.msgId}>
                <h4>Message {p.msgId}</h4>
                <Changes item={p} />
              </div>
            ))}
        </details>
      )}
    </>
  );
}

/** Each distinct text with how many times it occurs, the most frequent first. */
function tallyOf(texts: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const t of texts) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** A tally as a list: each text after its count. */
function Tally(props: { texts: readonly [string, number][] }) {
  return (
    <ul class="tally">
      {props.texts.map(([text, n]) => (
        <li key={text}>
          <strong>{n}</strong> {text}
        </li>
      ))}
    </ul>
  );
}

function GuardTable(props: { guard: VersionGuard | undefined }) {
  const entries = Object.entries(props.guard ?? {});
  return (
    <div class="guard">
      <h4>Version guard</h4>
      {props.guard === undefined ? (
        <p class="muted">This runner's preview gives no version guard: the replay will not check versions.</p>
      ) : entries.length === 0 ? (
        <p class="muted">No key to guard.</p>
      ) : (
        <>
          <p class="muted small">The replay is refused, writing nothing, if any of these keys has moved on since this preview.</p>
          <Table columns={["key", num("expected version")]} wrap>
            {entries.map(([key, version]) => (
              <tr key={key}>
                <td class="mono">{key}</td>
                <td class="num">{version ?? "none"}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </div>
  );
}

function OutcomeView(props: { outcome: Outcome; onPreviewAgain: () => void }) {
  const o = props.outcome;
  return (
    <div data-testid="replay-result" class={`outcome ${o.kind}`} role="status">
      {o.kind === "replayed" ? (
        <>
          <p>
            {o.result.replayed.length === 0 ? "Nothing was replayed." : o.result.replayed.length === 1 ? `Replayed message ${o.result.replayed[0]}.` : `Replayed ${o.result.replayed.length} messages.`}
            {o.result.refused.map((r) => ` Refused ${r.msgId}: ${r.refusal ?? reasonText(r.reason)}.`).join("")}
          </p>
          {o.result.replayed.length > 0 && <FollowedEnds msgIds={o.result.replayed} />}
        </>
      ) : o.kind === "conflict" ? (
        <>
          <p role="alert">
            <strong>Conflict — nothing was replayed.</strong> {sentence(o.conflict.message)} The state changed since the preview; preview again to see the current diff.
          </p>
          {o.conflict.mismatches && o.conflict.mismatches.length > 0 && (
            <Table columns={["key", num("expected"), num("current")]} wrap>
              {o.conflict.mismatches.map((m) => (
                <tr key={m.key}>
                  <td class="mono">{m.key}</td>
                  <td class="num">{m.expected ?? "none"}</td>
                  <td class="num">{m.current ?? "none"}</td>
                </tr>
              ))}
            </Table>
          )}
          <button type="button" onClick={props.onPreviewAgain}>
            Preview again
          </button>
        </>
      ) : (
        <p role="alert">
          Replay refused (HTTP {o.status}): {o.message}
        </p>
      )}
    </div>
  );
}

/**
 * Reads the replayed messages (the first 50) every second until each has ended — SUCCEEDED,
 * SKIPPED with its reason, or DEAD — and shows where they are: the real end, not the PENDING
 * the replay left them in.
 */
function FollowedEnds(props: { msgIds: readonly number[] }) {
  const followed = props.msgIds.slice(0, FOLLOW_AT_MOST);
  const [ends, setEnds] = useState<ReadonlyMap<number, MessageEnd>>(new Map());
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const current = new Map<number, MessageEnd>();
    const read = async () => {
      const open = followed.filter((id) => !END_STATUSES.has(current.get(id)?.status ?? ""));
      const answers = await Promise.all(open.map((id) => adminGet<MessageEnd>(`/admin/messages/${id}`)));
      if (stopped) return;
      answers.forEach((a, i) => {
        if (a.ok) current.set(open[i]!, { status: a.data.status, errorClass: a.data.errorClass, reason: a.data.reason });
      });
      setEnds(new Map(current));
      if (followed.some((id) => !END_STATUSES.has(current.get(id)?.status ?? ""))) timer = setTimeout(() => void read(), FOLLOW_EVERY_MS);
    };
    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [followed.join(",")]);

  const done = followed.filter((id) => END_STATUSES.has(ends.get(id)?.status ?? ""));
  if (followed.length === 1) {
    const id = followed[0]!;
    const end = ends.get(id);
    return (
      <p data-testid="replay-end" data-ended={done.length === 1 ? "true" : "false"}>
        {end === undefined ? `Reading message ${id}…` : done.length === 1 ? `Message ${id} ended ${endText(end)}.` : `Message ${id} is ${end.status}: waiting for the pipeline to process it…`}
      </p>
    );
  }
  const tally = tallyOf(done.map((id) => endText(ends.get(id)!)));
  return (
    <div data-testid="replay-end" data-ended={done.length === followed.length ? "true" : "false"}>
      <p>
        {done.length} of {followed.length} {followed.length < props.msgIds.length ? `followed (of ${props.msgIds.length}) ` : ""}ended
        {done.length < followed.length ? "; waiting for the pipeline to process the rest…" : "."}
      </p>
      <Tally texts={tally} />
    </div>
  );
}

const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);
