/**
 * The subset of a PGlite 0.5 instance the dialect uses, typed structurally so that importing the
 * dialect does not load `@electric-sql/pglite` (https://pglite.dev/docs/api).
 */
export interface PGliteLike {
  readonly ready: boolean;
  readonly closed: boolean;
  readonly waitReady: Promise<void>;
  query<T>(query: string, params?: unknown[], options?: { rowMode?: "array" | "object" }): Promise<PGliteResults<T>>;
  close(): Promise<void>;
}

export interface PGliteResults<T> {
  readonly rows: T[];
  readonly affectedRows?: number;
  readonly fields: readonly { readonly name: string; readonly dataTypeID: number }[];
}
