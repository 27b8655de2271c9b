import { describe, expect, it } from "vitest";
import type { LineagePage } from "@msgx/core";
import { lineageTable } from "../src/commands/lineage-table.js";

const page: LineagePage = {
  versions: [
    {
      version: 2,
      at: Date.UTC(2026, 2, 5, 6, 42, 11),
      source: { msgId: 12, type: "FLOP", subtype: "GTDT", dttm: "20260305064210", status: "SUCCEEDED", errorClass: null },
      events: [
        { eventId: 3, target: "KAFKA:msg", eventType: "UPSERT", status: "SENT", sentAt: 1, partition: 1, offset: 41 },
        { eventId: 4, target: "KAFKA:schd", eventType: "UPSERT", status: "PENDING", sentAt: null, partition: null, offset: null },
      ],
      changes: [{ field: "fields.GATE", before: "A22", after: "A25" }, { field: "fields.ESTT", before: "08:20" }, { field: "fields.ETOT", after: null }],
    },
    { version: 1, at: Date.UTC(2026, 2, 5, 2, 0, 0), source: null, events: [], changes: [{ field: "x", after: "y".repeat(200) }] },
  ],
  next: 1,
};

describe("lineageTable", () => {
  it("one aligned row per version, newest first, then how to page on", () => {
    const lines = lineageTable(page).split("\n");
    expect(lines[0]).toMatch(/^VERSION\s+AT \(UTC\)\s+MSG\s+TYPE\s+DTTM\s+STATUS\s+PUBLISHED\s+CHANGES$/);
    expect(lines[1]).toContain("2026-03-05 06:42:11");
    expect(lines[1]).toContain("FLOP/GTDT");
    expect(lines[1]).toContain("KAFKA:msg SENT 1@41, KAFKA:schd PENDING");
    expect(lines[1]).toContain('fields.GATE: "A22" → "A25"; -fields.ESTT; +fields.ETOT=null');
    expect(lines[2]).toMatch(/^1\s+2026-03-05 02:00:00\s+-\s+-\s+-\s+-\s+\+x="y+…$/);
    expect(lines[2]!.slice(lines[0]!.indexOf("CHANGES")).length).toBe(120);
    expect(lines[1]!.indexOf("FLOP/GTDT")).toBe(lines[0]!.indexOf("TYPE"));
    expect(lines[3]).toBe("older versions: --before 1");
  });
});
