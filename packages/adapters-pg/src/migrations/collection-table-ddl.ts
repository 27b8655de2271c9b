/**
 * The DDL of one flight collection table: keyed by (FLID, key), rows as jsonb, gone with their
 * flight. 0002_flights and 0010_flight_collections create theirs with it; its text is part of
 * their history (test/migration-ddl.unit.spec.ts pins it), so it never changes.
 */
export const collectionTableDdl = (table: string): string => `CREATE TABLE ${table} (
      flid       text    NOT NULL REFERENCES flight_schd (flid) ON DELETE CASCADE,
      seq_key    text    NOT NULL,
      ord        integer NOT NULL,
      row_values jsonb   NOT NULL CHECK (jsonb_typeof(row_values) = 'object'),
      PRIMARY KEY (flid, seq_key)
    )`;
