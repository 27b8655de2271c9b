import { useState } from "preact/hooks";
import { query } from "../admin-client.js";
import type { AuditEntry } from "../api-types.js";
import { instant, value } from "../format.js";
import { Loaded, PlaceholderRows } from "../loaded.js";
import { useAdmin } from "../use-admin.js";

/** The audit trail of operator actions (replays), newest first, a page of 20 at a time. */
export function AuditTrail() {
  const [after, setAfter] = useState<string | undefined>();
  const [page] = useAdmin<{ entries: readonly AuditEntry[]; next: string | number | null }>(`/admin/audit${query({ limit: 20, after })}`);
  const head = (
    <thead>
      <tr>
        <th scope="col">at</th>
        <th scope="col">operator</th>
        <th scope="col">action</th>
        <th scope="col">messages</th>
        <th scope="col">detail</th>
      </tr>
    </thead>
  );
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit trail</h2>
      <Loaded
        load={page}
        what="Audit trail"
        placeholder={
          <div class="table-wrap">
            <table>
              {head}
              <tbody>
                <PlaceholderRows rows={3} columns={5} />
              </tbody>
            </table>
          </div>
        }
      >
        {({ entries, next }) => (
          <>
            <div class="table-wrap">
              <table data-testid="audit-trail" class="cards-narrow">
                {head}
                <tbody>
                  {entries.length === 0 ? (
                    <tr>
                      <td colSpan={5} class="muted">
                        No operator action recorded.
                      </td>
                    </tr>
                  ) : (
                    entries.map((e) => (
                      <tr key={e.auditId}>
                        <td data-label="at">{instant(e.at)}</td>
                        <td data-label="operator">{e.operator}</td>
                        <td data-label="action">{e.action}</td>
                        <td class="mono" data-label="messages">
                          {e.msgIds.join(", ")}
                        </td>
                        <td class="mono reason" data-label="detail">{e.detail === undefined || e.detail === null ? "—" : value(e.detail)}</td>
                      </tr>
                    ))
                  )}
                </tbody>
              </table>
            </div>
            <div class="pager">
              {after !== undefined && (
                <button type="button" onClick={() => setAfter(undefined)}>
                  Newest
                </button>
              )}
              {next !== null && (
                <button type="button" onClick={() => setAfter(String(next))}>
                  Older
                </button>
              )}
            </div>
          </>
        )}
      </Loaded>
    </section>
  );
}
