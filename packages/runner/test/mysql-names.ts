import { DEFAULT_MAILBOX_NAMES, type MailboxNames } from "@msgx/adapters-mysql";

let counter = 0;
const tag = (prefix: string) => `${prefix}${process.pid}_${Date.now().toString(36)}_${counter++}`;

/** The upstream's layout (`cminmsgs`, `coutmsgs`, prefixed columns) under table names only this test uses. */
export function uniqueUpstreamNames(prefix: string): MailboxNames {
  const t = tag(prefix);
  const d = DEFAULT_MAILBOX_NAMES;
  return { inbound: { ...d.inbound, table: `${t}_cminmsgs` }, outbound: { ...d.outbound, table: `${t}_coutmsgs` } };
}

/** The same tables with every table and column renamed. */
export function uniqueRenamedNames(prefix: string): MailboxNames {
  const t = tag(prefix);
  const rename = <C extends object>(columns: C, p: string): C =>
    Object.fromEntries(Object.keys(columns).map((role) => [role, `${p}_${role.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`])) as C;
  return {
    inbound: { table: `${t}_in_box`, columns: rename(DEFAULT_MAILBOX_NAMES.inbound.columns, "in") },
    outbound: { table: `${t}_out_box`, columns: rename(DEFAULT_MAILBOX_NAMES.outbound.columns, "out") },
  };
}

/** The runner's config overrides that point it at `names` (`mysql.inbound.table`, `mysql.inbound.columns.clobMsg`, …). */
export function namesOverrides(names: MailboxNames): Record<string, string> {
  const out: Record<string, string> = {};
  for (const side of ["inbound", "outbound"] as const) {
    out[`mysql.${side}.table`] = names[side].table;
    for (const [role, column] of Object.entries(names[side].columns)) out[`mysql.${side}.columns.${role}`] = column;
  }
  return out;
}

/** The same as `MSGX_*` variables (`MSGX_MYSQL_INBOUND_TABLE`, `MSGX_MYSQL_INBOUND_COLUMNS_CLOB_MSG`, …). */
export function namesEnv(names: MailboxNames): Record<string, string> {
  const env = (path: string) => "MSGX_" + path.split(".").map((p) => p.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()).join("_");
  return Object.fromEntries(Object.entries(namesOverrides(names)).map(([path, value]) => [env(path), value]));
}
