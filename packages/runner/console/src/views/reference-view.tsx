import { useState } from "preact/hooks";
import { query } from "../admin-client.js";
import type { RefEntry } from "../api-types.js";
import { count, instant, value } from "../format.js";
import { Loaded } from "../loaded.js";
import { Pager } from "../pager.js";
import { num, Table } from "../table.js";
import { useAdmin } from "../use-admin.js";
import { href } from "../use-hash-route.js";
import { LineageTimeline } from "./lineage-timeline.js";

const refPath = (...parts: string[]) => `/admin/reference/${parts.map(encodeURIComponent).join("/")}`;

/** Reference data (REF_MASTER): the types, one type's entries, one entry with its lineage. */
export function ReferenceView(props: { rtype: string | undefined; rkey: string | undefined }) {
  const [types] = useAdmin<readonly { rtype: string; live: number }[]>("/admin/reference");
  return (
    <section aria-labelledby="reference-title">
      <h1 id="reference-title">Reference data</h1>
      <Loaded load={types} what="Reference data">
        {(list) => (
          <nav aria-label="Reference types" class="chips">
            {list.length === 0 && <p class="muted">No reference data stored yet.</p>}
            {list.map((t) => (
              <a key={t.rtype} href={href("reference", t.rtype)} class="chip" aria-current={t.rtype === props.rtype ? "page" : undefined}>
                {t.rtype} <span class="muted">{count(t.live)}</span>
              </a>
            ))}
          </nav>
        )}
      </Loaded>
      {props.rtype !== undefined && (
        <div class="split">
          <Entries key={props.rtype} rtype={props.rtype} selected={props.rkey} />
          <div class="detail">{props.rkey !== undefined ? <Entry key={props.rkey} rtype={props.rtype} rkey={props.rkey} /> : <p class="muted">Select an entry.</p>}</div>
        </div>
      )}
    </section>
  );
}

function Entries(props: { rtype: string; selected: string | undefined }) {
  const [after, setAfter] = useState<string | undefined>();
  const [page] = useAdmin<{ entries: readonly RefEntry[]; next: string | null }>(`${refPath(props.rtype)}${query({ limit: 100, after, deleted: 1 })}`);
  return (
    <div class="list table-wrap">
      <Loaded load={page} what={`Entries of ${props.rtype}`}>
        {({ entries, next }) => (
          <>
            <Table columns={["key", num("version"), "updated"]}>
              {entries.map((e) => (
                <tr key={e.rkey} class={e.rkey === props.selected ? "selected" : e.deleted ? "muted" : undefined}>
                  <td class="mono">
                    <a href={href("reference", e.rtype, e.rkey)}>{e.rkey === "" ? "(empty key)" : e.rkey}</a>
                    {e.deleted ? " (deleted)" : ""}
                  </td>
                  <td class="num">{e.version}</td>
                  <td>{instant(e.updatedAt)}</td>
                </tr>
              ))}
            </Table>
            <Pager first="First page" next="Next page" onFirst={after !== undefined ? () => setAfter(undefined) : undefined} onNext={next !== null ? () => setAfter(next) : undefined} />
          </>
        )}
      </Loaded>
    </div>
  );
}

function Entry(props: { rtype: string; rkey: string }) {
  const path = refPath(props.rtype, props.rkey);
  const [entry] = useAdmin<RefEntry>(path);
  return (
    <>
      <h2>
        {props.rtype} <span class="mono">{props.rkey}</span>
      </h2>
      <Loaded load={entry} what="The entry">
        {(e) => (
          <Table class="fields" wrap>
            <tr>
              <th scope="row">version</th>
              <td>
                {e.version}
                {e.deleted ? " (deleted)" : ""} · message <span class="mono">{e.msgId}</span>
              </td>
            </tr>
            {Object.entries(e.fields).map(([name, v]) => (
              <tr key={name}>
                <th scope="row" class="mono">{name}</th>
                <td class="mono">{value(v)}</td>
              </tr>
            ))}
          </Table>
        )}
      </Loaded>
      <LineageTimeline basePath={path} what={`${props.rtype} ${props.rkey}`} />
    </>
  );
}
