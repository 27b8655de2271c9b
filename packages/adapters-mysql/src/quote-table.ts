const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]{0,63}$/;

/**
 * A configured table name (`TABLE` or `schema.TABLE`) as quoted SQL. Names come from
 * configuration, never from input, but are still checked: anything that is not a plain
 * identifier is refused with a `RangeError` at construction.
 */
export function quoteTable(name: string): string {
  const parts = name.split(".");
  if (parts.length > 2 || !parts.every((p) => IDENTIFIER.test(p))) {
    throw new RangeError(`not a plain table name: ${JSON.stringify(name)}`);
  }
  return parts.map((p) => `\`${p}\``).join(".");
}
