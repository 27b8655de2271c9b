/**
 * An embedded runner's lineage names the JSONL file and line of each placed record (issue 31):
 * the line given is the one the delivery port really wrote the record on.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LineageEvent, LineagePage, LineageReader } from "@msgx/core";
import { afterEach, describe, expect, it } from "vitest";
import { JsonlDeliveryPort } from "../src/embedded/jsonl-delivery-port.js";
import { jsonlLineage } from "../src/embedded/jsonl-lineage.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const event = (eventId: number, target: string, offset: number | null): LineageEvent => ({
  eventId,
  target,
  eventType: "UPSERT",
  status: offset === null ? "PENDING" : "SENT",
  sentAt: offset === null ? null : 1,
  partition: offset === null ? null : 0,
  offset,
});

describe("jsonlLineage", () => {
  it("adds events/<topic>.jsonl and the 1-based line the port wrote each placed record on; unplaced events and unknown targets stay as they were", async () => {
    const dir = mkdtempSync(join(tmpdir(), "msgx-jsonl-lineage-"));
    dirs.push(dir);
    const port = new JsonlDeliveryPort(dir);
    const placements = await port.send(["a", "b", "c"].map((key) => ({ topic: "msgx-msg", key, value: JSON.stringify({ key }), headers: {} })));
    await port.close();
    const offsetOfC = placements[2]!.offset;
    const page: LineagePage = { versions: [{ version: 3, at: 1, source: null, changes: [], events: [event(7, "KAFKA:msg", offsetOfC), event(8, "KAFKA:schd", null), event(9, "HTTP:x", 4)] }], next: null };
    const reader: LineageReader = { flightLineage: async () => page, referenceLineage: async () => page };

    const [msg, schd, other] = (await jsonlLineage(reader, { "KAFKA:msg": "msgx-msg", "KAFKA:schd": "msgx-schd" }).flightLineage("1", { limit: 5 })).versions[0]!.events as (LineageEvent & { file?: string; line?: number })[];
    expect(msg).toStrictEqual({ ...event(7, "KAFKA:msg", offsetOfC), file: "events/msgx-msg.jsonl", line: 3 });
    const line = readFileSync(join(dir, msg!.file!), "utf8").split("\n")[msg!.line! - 1]!;
    expect(JSON.parse(line)).toMatchObject({ key: "c", offset: offsetOfC });
    expect(schd).toStrictEqual(event(8, "KAFKA:schd", null));
    expect(other).toStrictEqual(event(9, "HTTP:x", 4));
  });
});
