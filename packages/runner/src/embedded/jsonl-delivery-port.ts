import { mkdirSync, readFileSync, existsSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { MsgxError, type DeliveryPlacement, type DeliveryPort, type DeliveryRecord } from "@msgx/core";

/** One line of `<dataDir>/events/<topic>.jsonl`. */
export interface JsonlRecord {
  readonly topic: string;
  readonly key: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The record value as sent (a JSON string), or null for a tombstone. */
  readonly value: string | null;
  /** Position in its topic file, from 0. */
  readonly offset: number;
}

/**
 * The embedded runner's broker: each topic is an append-only JSON-lines file. A `send` resolves
 * after the lines are written and `fdatasync`ed, the file's equivalent of acks=all. Order per
 * topic is the order of calls. Each file is one partition (0); a record's placement offset is the
 * `offset` its line carries, its position among the file's records (its 0-based line number,
 * unless a crash left a torn line, which holds no record).
 */
export class JsonlDeliveryPort implements DeliveryPort {
  readonly #dir: string;
  readonly #files = new Map<string, { handle: FileHandle; next: number }>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(dataDir: string) {
    this.#dir = join(dataDir, "events");
    mkdirSync(this.#dir, { recursive: true });
  }

  send(records: readonly DeliveryRecord[]): Promise<readonly DeliveryPlacement[]> {
    const run = this.#queue.then(() => this.#append(records));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #append(records: readonly DeliveryRecord[]): Promise<readonly DeliveryPlacement[]> {
    try {
      const byTopic = new Map<string, number[]>();
      records.forEach((r, i) => byTopic.set(r.topic, [...(byTopic.get(r.topic) ?? []), i]));
      const placements: DeliveryPlacement[] = new Array<DeliveryPlacement>(records.length);
      for (const [topic, indexes] of byTopic) {
        const file = await this.#file(topic);
        const first = file.next;
        const lines = indexes.map((i, n) => {
          const r = records[i]!;
          placements[i] = { partition: 0, offset: first + n };
          return JSON.stringify({ topic, key: r.key, headers: r.headers, value: r.value, offset: first + n }) + "\n";
        });
        // Taken before the write: a failed write that still appended lines must not reuse offsets.
        file.next = first + lines.length;
        await file.handle.appendFile(lines.join(""), "utf8");
        await file.handle.datasync();
      }
      return placements;
    } catch (e) {
      throw new MsgxError("DEPENDENCY_UNAVAILABLE", `event files: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }

  async #file(topic: string): Promise<{ handle: FileHandle; next: number }> {
    if (!/^[A-Za-z0-9._-]+$/.test(topic)) throw new MsgxError("CONFIG", `topic name not usable as a file name: ${topic}`);
    let f = this.#files.get(topic);
    if (!f) {
      const path = join(this.#dir, `${topic}.jsonl`);
      const text = existsSync(path) ? readFileSync(path, "utf8") : "";
      f = { handle: await open(path, "a"), next: parseLines(text).length };
      // A crash mid-write can leave a torn last line: close it off so the next record starts clean.
      if (text !== "" && !text.endsWith("\n")) await f.handle.appendFile("\n", "utf8");
      this.#files.set(topic, f);
    }
    return f;
  }

  async close(): Promise<void> {
    await this.#queue;
    for (const f of this.#files.values()) await f.handle.close();
    this.#files.clear();
  }
}

function parseLines(text: string): JsonlRecord[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as JsonlRecord];
      } catch {
        return [];
      }
    });
}

/** Reads a topic file back (tests, `msgx demo`). Skips a torn last line left by a crash. */
export function readJsonlTopic(dataDir: string, topic: string): JsonlRecord[] {
  const path = join(dataDir, "events", `${topic}.jsonl`);
  return existsSync(path) ? parseLines(readFileSync(path, "utf8")) : [];
}
