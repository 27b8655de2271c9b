import { describe, expect, it } from "vitest";
import { DEFAULT_MAILBOX_NAMES, resolveMailboxOptions } from "@msgx/adapters-mysql";

describe("mailbox options", () => {
  it("default as WIRE.md says: no STATUS = 'VALID' filter (ours), SUBSYSTEM_* backfilled (ours, switchable), the upstream's names", () => {
    const o = resolveMailboxOptions();
    expect(o.onlyValidStatus).toBe(false);
    expect(o.backfillSubsystem).toBe(true);
    expect(o.names).toEqual(DEFAULT_MAILBOX_NAMES);
    expect(resolveMailboxOptions({ onlyValidStatus: true, backfillSubsystem: false })).toMatchObject({ onlyValidStatus: true, backfillSubsystem: false });
  });
});
