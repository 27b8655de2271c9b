import type { IntakeState } from "@msgx/core";
import { toNumber } from "../rows/values.js";
import type { Db } from "./db.js";

/** The persisted intake state, or undefined before the first enqueue. */
export async function intakeState(db: Db): Promise<IntakeState | undefined> {
  const row = await db.selectFrom("intake_state").select("horizon").where("id", "=", 1).executeTakeFirst();
  return row === undefined ? undefined : { horizon: toNumber(row.horizon) };
}
