import { MsgxError } from "@msgx/core";

/** One server of a libpq host list. */
export interface PgHost {
  readonly host: string;
  readonly port: number;
}

/**
 * libpq's `target_session_attrs`, the kinds msgx can use: `any` (the first server that accepts a
 * connection), `read-write` (one whose sessions accept writes: `transaction_read_only` off),
 * `primary` (one not in recovery). libpq's `read-only`, `standby` and `prefer-standby` pick servers
 * msgx could not write to and are refused.
 */
export type TargetSessionAttrs = "any" | "read-write" | "primary";

const TARGETS: readonly string[] = ["any", "read-write", "primary"] satisfies readonly TargetSessionAttrs[];
const READ_ONLY_TARGETS: readonly string[] = ["read-only", "standby", "prefer-standby"];
const DEFAULT_PORT = 5432;

/** A PostgreSQL URL with several servers, or one that must be a particular kind of server. */
export interface PgHostList {
  /** In the URL's order: a connection tries them first to last. */
  readonly hosts: readonly PgHost[];
  readonly targetSessionAttrs: TargetSessionAttrs;
  /** The URL for one of the hosts: same user, password, database and parameters, minus `target_session_attrs`. */
  urlFor(host: PgHost): string;
  /** The URL for messages: the password replaced by `***`. */
  readonly redacted: string;
}

/**
 * Reads libpq's multi-host URL syntax, which node-postgres does not (its parser throws "Invalid
 * URL"): `postgres://user@h1:5433,h2:5434/db?target_session_attrs=read-write`. Hosts are
 * comma-separated, each with an optional port (default 5432; IPv6 in brackets).
 *
 * Returns undefined for a URL node-postgres reads as it is: one host and no `target_session_attrs`
 * (or no URL at all: a `key=value` string, a socket path). Throws a CONFIG `MsgxError` naming the
 * part that is wrong.
 */
export function parsePgHosts(url: string): PgHostList | undefined {
  const read = readPgHosts(url);
  if (read === undefined || "hosts" in read) return read;
  throw new MsgxError("CONFIG", `PostgreSQL URL ${read.redacted}: ${read.problem}`, { retriable: false });
}

/**
 * For a config check that must not echo the URL (it may carry a password): undefined when `url`
 * is not a host list or `target_session_attrs` URL (check it as any URL), else `{ problem }` with
 * what is wrong, or `{}` when nothing is.
 */
export function checkPgHosts(url: string): { readonly problem?: string } | undefined {
  const read = readPgHosts(url);
  if (read === undefined) return undefined;
  return "hosts" in read ? {} : { problem: read.problem };
}

interface Refusal {
  readonly problem: string;
  readonly redacted: string;
}

function readPgHosts(url: string): PgHostList | Refusal | undefined {
  const match = /^(postgres(?:ql)?:\/\/)([^/?#]*)(\/[^?#]*)?(\?[^#]*)?(#.*)?$/i.exec(url);
  if (!match) return undefined;
  const [, scheme = "", authority = "", path = "", query = "", fragment = ""] = match;
  const at = authority.lastIndexOf("@");
  const userinfo = at < 0 ? "" : authority.slice(0, at + 1);
  const hostlist = authority.slice(at + 1);
  const params = query.length > 1 ? query.slice(1).split("&") : [];
  const targetParams = params.filter((p) => paramName(p) === "target_session_attrs");
  if (!hostlist.includes(",") && targetParams.length === 0) return undefined;

  const redacted = `${scheme}${redactUserinfo(userinfo)}${hostlist}${path}${query}${fragment}`;
  try {
    const target = readTarget(targetParams);
    for (const name of ["host", "hostaddr", "port"]) {
      if (params.some((p) => paramName(p) === name)) refuse(`give the hosts and ports in the host list, not as ?${name}= (with a host list or target_session_attrs)`);
    }
    const hosts = hostlist.split(",").map((entry, i) => parseHost(entry, i + 1));
    const rest = params.filter((p) => paramName(p) !== "target_session_attrs");
    const tail = `${path}${rest.length === 0 ? "" : `?${rest.join("&")}`}${fragment}`;
    return { hosts, targetSessionAttrs: target, urlFor: (host) => `${scheme}${userinfo}${formatHost(host)}${tail}`, redacted };
  } catch (e) {
    if (e instanceof UrlProblem) return { problem: e.message, redacted };
    throw e;
  }
}

/** What is wrong with the URL, thrown inside the reader and caught at its top. */
class UrlProblem extends Error {}
const refuse = (problem: string): never => {
  throw new UrlProblem(problem);
};

function readTarget(targetParams: readonly string[]): TargetSessionAttrs {
  if (targetParams.length > 1) refuse("target_session_attrs is given more than once");
  const target = targetParams.length === 0 ? "any" : decode(targetParams[0]!.slice("target_session_attrs=".length), "target_session_attrs");
  if (READ_ONLY_TARGETS.includes(target)) refuse(`target_session_attrs=${target} picks a server msgx cannot write to; use read-write (or primary, or any)`);
  if (!TARGETS.includes(target)) refuse(`target_session_attrs must be any, read-write or primary, not '${target}'`);
  return target as TargetSessionAttrs;
}

/** `host:port` as a URL writes it (IPv6 in brackets). */
export function formatHost(host: PgHost): string {
  return `${host.host.includes(":") ? `[${host.host}]` : host.host}:${host.port}`;
}

function parseHost(entry: string, position: number): PgHost {
  const where = `host ${position} of the host list`;
  const match = /^(\[[^\]]*\]|[^:[\]]*)(?::([^:]*))?$/.exec(entry);
  if (!match) return refuse(`${where} ('${entry}') is not host[:port] (IPv6 addresses go in brackets)`);
  const [, rawHost = "", rawPort] = match;
  const host = rawHost.startsWith("[") ? rawHost.slice(1, -1) : decode(rawHost, where);
  if (host === "") refuse(`${where} is empty`);
  if (host.startsWith("/")) refuse(`${where} is a socket directory; a host list takes TCP hosts only`);
  if (rawPort === undefined) return { host, port: DEFAULT_PORT };
  const port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : NaN;
  if (!(port >= 1 && port <= 65_535)) refuse(`the port of ${where} ('${rawPort}') must be a number from 1 to 65535`);
  return { host, port };
}

const paramName = (param: string): string => param.split("=", 1)[0] ?? "";

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return refuse(`${what} has a malformed %-escape`);
  }
}

function redactUserinfo(userinfo: string): string {
  const colon = userinfo.indexOf(":");
  return colon < 0 ? userinfo : `${userinfo.slice(0, colon)}:***@`;
}
