import { useState } from "preact/hooks";
import { query } from "../admin-client.js";
import type { AuditEntry } from "../api-types.js";
import { instant, value } from "../format.js";
import { Loaded } from "../loaded.js";
import { Pager } from "../pager.js";
import { PlaceholderTable } from "../placeholder-table.js";
import { Table } from "../table.js";
import { useAdmin } from "../use-admin.js";

const COLUMNS = ["at", "operator", "action", "messages", "detail"];

/** The audit trail of operator actions (replays), newest first, a page of 20 at a time. */
export function AuditTrail() {
  const [after, setAfter] = useState<string | undefined>();
  const [page] = useAdmin<{ entries: readonly AuditEntry[]; next: string | number | null }>(`/admin/audit${query({ limit: 20, after })}`);
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit trail</h2>
      <Loaded load={page} what="Audit trail" placeholder={<PlaceholderTable columns={COLUMNS} rows={3} wrap />}>
        {({ entries, next }) => (
          <>
            <Table columns={COLUMNS} testid="audit-trail" class="cards-narrow" wrap>
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
            </Table>
            <Pager first="Newest" next="Older" onFirst={after !== undefined ? () => setAfter(undefined) : undefined} onNext={next !== null ? () => setAfter(String(next)) : undefined} />
          </>
        )}
      </Loaded>
    </section>
  );
}
