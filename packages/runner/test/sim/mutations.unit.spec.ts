/**
 * The mutation check of the simulation (issue 35, item 5): each guard of the exchange removed in
 * turn (mutations.ts) is caught by an invariant within MUTATION_SEED_BOUND seeds, at the seed
 * docs/simulation.md gives, so the table is backed by this run.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { firstCatch, MUTATION_SEED_BOUND, MUTATIONS } from "./mutations.js";
import { simulate } from "./simulate.js";

const doc = readFileSync(new URL("../../../../docs/simulation.md", import.meta.url), "utf8");
/** The `caught` column of docs/simulation.md's table, by guard. */
const documented = new Map(
  doc
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| guard") && !l.startsWith("| ---"))
    .map((l) => l.split(" | ").map((c) => c.replace(/^\| /, "")))
    .filter((cells) => cells.length >= 3)
    .map((cells) => [cells[0]!, cells[2]!] as const),
);

describe("simulation mutation check", () => {
  it(`has at least 8 guards whose removal is caught within ${MUTATION_SEED_BOUND} seeds`, () => {
    expect(MUTATIONS.length).toBeGreaterThanOrEqual(8);
  });

  for (const m of MUTATIONS) {
    it(`removes ${m.guard}: caught at the seed docs/simulation.md gives`, async () => {
      const caught = await firstCatch(m, simulate);
      expect(caught, `${m.guard} removed, yet no seed up to ${MUTATION_SEED_BOUND} failed`).toBeDefined();
      expect(documented.get(m.guard), `docs/simulation.md has no row for ${m.guard}`).toBe(String(caught!.seed));
    }, 600_000);
  }
});
