import { describe, expect, it } from "vitest";
import { newestFirstPage } from "../../src/base/newest-first-page.js";

const rows = (...versions: number[]) => versions.map((version) => ({ version }));

describe("newestFirstPage", () => {
  it("a full page with one row past it: the first `limit`, next the oldest one's version", () => {
    expect(newestFirstPage("entries", rows(9, 7, 4), 2)).toEqual({ entries: rows(9, 7), next: 7 });
  });
  it("no row past the page: the last page, next null (also when exactly full, or empty)", () => {
    expect(newestFirstPage("entries", rows(9, 7), 2)).toEqual({ entries: rows(9, 7), next: null });
    expect(newestFirstPage("entries", rows(3), 2)).toEqual({ entries: rows(3), next: null });
    expect(newestFirstPage("versions", [], 2)).toEqual({ versions: [], next: null });
  });
});
