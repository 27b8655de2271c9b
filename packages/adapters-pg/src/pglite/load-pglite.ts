import { MsgxError } from "@msgx/core";
import type { PGlite } from "@electric-sql/pglite";

const PACKAGE = "@electric-sql/pglite";

/**
 * The `PGlite` class, imported on first use: `@electric-sql/pglite` is an optional peer (most of a
 * consumer's node_modules if it were required) that only `createPgliteStores` needs. When it is
 * not installed the caller gets a CONFIG error that names the install line, not a bare
 * module-resolution failure; any other failure of the import passes through unchanged.
 */
export async function loadPglite(load: () => Promise<{ readonly PGlite: typeof PGlite }> = () => import("@electric-sql/pglite")): Promise<typeof PGlite> {
  try {
    return (await load()).PGlite;
  } catch (e) {
    if (!isMissingPackage(e)) throw e;
    throw new MsgxError("CONFIG", `createPgliteStores needs the optional peer dependency ${PACKAGE}: install it (npm install ${PACKAGE})`, { cause: e });
  }
}

/** Node's "cannot find package" from import() (ERR_MODULE_NOT_FOUND) or require (MODULE_NOT_FOUND), for this package. */
function isMissingPackage(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") && e instanceof Error && e.message.includes(PACKAGE);
}
