/**
 * The subset of a PGlite 0.5 instance the dialect uses, typed structurally so that importing the
 * dialect does not load `@electric-sql/pglite` (https://pglite.dev/docs/api).
 */
export interface PGliteLike {
  readonly ready: boolean;
  readonly closed: boolean;
  readonly waitReady: Promise<void>;
  query<T>(query: string, params?: unknown[], options?: { rowMode?: "array" | "object" }): Promise<PGliteResults<T>>;
  /** Several statements by the simple protocol (no parameters): one result each. */
  exec(query: string, options?: { rowMode?: "array" | "object" }): Promise<PGliteResults<unknown>[]>;
  close(): Promise<void>;
}

export interface PGliteResults<T> {
  readonly rows: T[];
  readonly affectedRows?: number;
  readonly fields: readonly { readonly name: string; readonly dataTypeID: number }[];
}
