import { checkPgHosts } from "@msgx/adapters-pg";

/**
 * What a connection setting must look like, checked at start so that `--pg notaurl` is a CONFIG
 * error naming the setting, not `getaddrinfo ENOTFOUND base` from a driver deep inside. The value
 * is never echoed back: a URL may carry a password.
 */
export interface UrlRule {
  /** The URL schemes the driver speaks. */
  readonly schemes: readonly string[];
  /** An example for the error message. */
  readonly example: string;
  /** A URL form the WHATWG parser refuses but the driver takes: undefined when `value` is not one, else its problem, if any. */
  readonly other?: (value: string) => { readonly problem?: string } | undefined;
}

/** Also libpq's host list: postgres://u@h1:5433,h2:5434/db?target_session_attrs=read-write (a standby pair). */
export const PG_URL: UrlRule = { schemes: ["postgres:", "postgresql:"], example: "postgres://user@host:5432/db", other: checkPgHosts };
export const MYSQL_URL: UrlRule = { schemes: ["mysql:", "mariadb:"], example: "mysql://user@host:3306/db" };

/** Why `value` is not a usable connection URL under `rule`; undefined when it is. */
export function urlProblem(value: string, rule: UrlRule): string | undefined {
  const other = rule.other?.(value);
  if (other !== undefined) return other.problem;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `is not a URL; expected e.g. ${rule.example}`;
  }
  if (!rule.schemes.includes(url.protocol)) return `must start with ${rule.schemes.map((s) => `${s}//`).join(" or ")} (got ${url.protocol}//); expected e.g. ${rule.example}`;
  if (url.hostname === "") return `names no host; expected e.g. ${rule.example}`;
  return undefined;
}

/** Why a comma-separated `host:port` broker list is not usable; undefined when it is. */
export function brokersProblem(value: string): string | undefined {
  const brokers = value.split(",").map((b) => b.trim());
  if (brokers.every((b) => b === "")) return "names no broker; expected e.g. kafka1:9092,kafka2:9092";
  for (const b of brokers) {
    const m = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:]+\]):(\d{1,5})$/.exec(b);
    if (m === null || Number(m[2]) < 1 || Number(m[2]) > 65_535) return `has "${b}", not host:port; expected e.g. kafka1:9092,kafka2:9092`;
  }
  return undefined;
}
