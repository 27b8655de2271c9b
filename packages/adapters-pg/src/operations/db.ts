import type { Kysely } from "kysely";
import type { MsgxDatabase } from "../rows/tables.js";

/** A Kysely bound to the msgx tables: the pool, or the connection of an open transaction. */
export type Db = Kysely<MsgxDatabase>;
