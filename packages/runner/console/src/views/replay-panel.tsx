import { useState } from "preact/hooks";
import { adminPost } from "../admin-client.js";
import type { ReplayConflict, ReplayPreviewAnswer, ReplayResult, VersionGuard } from "../api-types.js";
import { FieldDiffTable } from "../field-diff-table.js";

const OPERATOR_KEY = "msgx.console.operator";

type Outcome =
  | { readonly kind: "replayed"; readonly result: ReplayResult }
  | { readonly kind: "conflict"; readonly conflict: ReplayConflict }
  | { readonly kind: "refused"; readonly status: number; readonly message: string };

/**
 * Replay of one message, preflight first: "Preview replay" is a dry run that shows whether it is
 * eligible, what applying it now would change on each flight or reference key (before → after)
 * and the version guard; "Replay" sends the guard back with the operator's name, so a key changed
 * since the preview is refused (409) and nothing is written.
 */
export function ReplayPanel(props: { msgId: number; onReplayed: () => void }) {
  const [operator, setOperator] = useState(() => sessionStorage.getItem(OPERATOR_KEY) ?? "");
  const [preview, setPreview] = useState<ReplayPreviewAnswer | undefined>();
  const [previewError, setPreviewError] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<Outcome | undefined>();
  const [busy, setBusy] = useState(false);
  const item = preview?.preview.find((p) => p.msgId === props.msgId);
  // After a replay or a conflict the preview is spent: a new one gives the current diff and guard.
  const canApply = item?.eligible === true && operator.trim() !== "" && !busy && outcome === undefined;

  const runPreview = async () => {
    setBusy(true);
    setOutcome(undefined);
    const a = await adminPost<ReplayPreviewAnswer>("/admin/replay", { msgIds: [props.msgId], dryRun: true });
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
    const a = await adminPost<ReplayResult>("/admin/replay", { msgIds: [props.msgId], operator: operator.trim(), ...(preview.expect ? { expect: preview.expect } : {}) });
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
          Replay
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
          {item === undefined ? (
            <p class="notice">The preview does not list message {props.msgId}.</p>
          ) : (
            <>
              <p>
                {item.eligible ? <span class="badge ok">eligible</span> : <span class="badge warn">not eligible</span>}{" "}
                {item.refusal ?? `${item.status}, ${item.errorClass ?? "no class"}: goes back to PENDING and is processed again.`}
              </p>
              {item.changes === undefined ? (
                <p class="muted">This runner's preview has no field diff.</p>
              ) : item.changes.length === 0 ? (
                <p class="muted">Applying it now would change no flight or reference key.</p>
              ) : (
                item.changes.map((c) => (
                  <div key={`${c.kind}:${c.key}`} class="change">
                    <h4>
                      {c.kind} <span class="mono">{c.key}</span>: version {c.currentVersion ?? "none"} → {c.nextVersion}
                    </h4>
                    <FieldDiffTable changes={c.changes} />
                  </div>
                ))
              )}
              <GuardTable guard={preview.expect} />
            </>
          )}
        </div>
      )}
      {outcome !== undefined && <OutcomeView outcome={outcome} onPreviewAgain={() => void runPreview()} />}
    </section>
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
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">key</th>
                  <th scope="col" class="num">expected version</th>
                </tr>
              </thead>
              <tbody>
                {entries.map(([key, version]) => (
                  <tr key={key}>
                    <td class="mono">{key}</td>
                    <td class="num">{version ?? "none"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
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
        <p>
          {o.result.replayed.length > 0 ? `Replayed: message ${o.result.replayed.join(", ")} is PENDING again.` : "Nothing was replayed."}
          {o.result.refused.map((r) => ` Refused ${r.msgId}: ${r.refusal ?? r.reason ?? "not eligible"}.`).join("")}
        </p>
      ) : o.kind === "conflict" ? (
        <>
          <p role="alert">
            <strong>Conflict — nothing was replayed.</strong> {sentence(o.conflict.message)} The state changed since the preview; preview again to see the current diff.
          </p>
          {o.conflict.mismatches && o.conflict.mismatches.length > 0 && (
            <div class="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">key</th>
                    <th scope="col" class="num">expected</th>
                    <th scope="col" class="num">current</th>
                  </tr>
                </thead>
                <tbody>
                  {o.conflict.mismatches.map((m) => (
                    <tr key={m.key}>
                      <td class="mono">{m.key}</td>
                      <td class="num">{m.expected ?? "none"}</td>
                      <td class="num">{m.current ?? "none"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
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

const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);
