import { DEFAULT_MAILBOX_NAMES, mailboxNameProblems, type MailboxNames } from "@msgx/adapters-mysql";
import { z } from "zod";

/** One string setting per column role, defaulting to the upstream's name. */
function columnShape<K extends string>(defaults: Readonly<Record<K, string>>): { [P in K]: z.ZodDefault<z.ZodString> } {
  const shape = {} as { [P in K]: z.ZodDefault<z.ZodString> };
  for (const role of Object.keys(defaults) as K[]) shape[role] = z.string().default(defaults[role]);
  return shape;
}

const { inbound, outbound } = DEFAULT_MAILBOX_NAMES;
const inboundColumns = z.object(columnShape(inbound.columns)).strict().prefault({});
const outboundColumns = z.object(columnShape(outbound.columns)).strict().prefault({});

/**
 * `mysql.inbound` and `mysql.outbound`: the upstream's table and column names
 * (`MSGX_MYSQL_INBOUND_TABLE`, `MSGX_MYSQL_INBOUND_COLUMNS_CLOB_MSG`, …), defaulting to its DDL.
 * A table is `table` or `schema.table`, spelt as the server has it (case matters on Linux).
 */
export const mailboxNamesShape = {
  inbound: z.object({ table: z.string().default(inbound.table), columns: inboundColumns }).strict().prefault({}),
  outbound: z.object({ table: z.string().default(outbound.table), columns: outboundColumns }).strict().prefault({}),
};

/**
 * The adapter's own check decides (plain identifiers, no column for two roles), so the runner
 * refuses at start exactly the maps the mailbox would; each problem at its setting's path.
 */
export function checkMailboxNames(names: MailboxNames, ctx: z.RefinementCtx): void {
  for (const problem of mailboxNameProblems(names)) ctx.addIssue({ code: "custom", path: [...problem.path], message: problem.message });
}
