import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One JSON call to a runner started in process, with `token` as bearer token unless empty. */
export async function callRunner(base: string, method: string, path: string, body: unknown, token: string): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(new URL(path, base), {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A JSONL topic's records in the embedded data directory (`<data-dir>/events/<topic>.jsonl`), none when it has no file yet. */
export function jsonlRecords(dataDir: string, topic: string): { key: string; headers: Record<string, string>; value: string }[] {
  const file = join(dataDir, "events", `${topic}.jsonl`);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { key: string; headers: Record<string, string>; value: string });
}
