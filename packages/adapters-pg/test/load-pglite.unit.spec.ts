import { isMsgxError } from "@msgx/core";
import { describe, expect, it } from "vitest";
import { loadPglite } from "../src/pglite/load-pglite.js";

const notFound = (specifier: string) =>
  Object.assign(new Error(`Cannot find package '${specifier}' imported from /app/node_modules/@msgx/adapters-pg/dist/index.js`), { code: "ERR_MODULE_NOT_FOUND" });

describe("loadPglite: @electric-sql/pglite is an optional peer", () => {
  it("loads the PGlite class when the package is installed", async () => {
    const PGlite = await loadPglite();
    expect(typeof PGlite.create).toBe("function");
  });

  it("a missing package is a CONFIG error naming the install line, with the resolution error as cause", async () => {
    const cause = notFound("@electric-sql/pglite");
    const error = await loadPglite(() => Promise.reject(cause)).catch((e: unknown) => e);
    expect(isMsgxError(error) && error.kind).toBe("CONFIG");
    expect((error as Error).message).toContain("npm install @electric-sql/pglite");
    expect((error as Error).cause).toBe(cause);
  });

  it("any other failure of the import passes through unchanged", async () => {
    for (const other of [notFound("some-dependency-of-pglite"), new Error("boom")]) {
      await expect(loadPglite(() => Promise.reject(other))).rejects.toBe(other);
    }
  });
});
