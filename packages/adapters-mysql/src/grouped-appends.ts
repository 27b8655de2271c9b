import { isMsgxError } from "@msgx/core";

/** How appends that arrive together are grouped into one INSERT. */
export interface AppendGrouping {
  /** Rows in one INSERT at most. */
  readonly maxRows: number;
  /** UTF-16 code units of raw text in one INSERT at most; a longer text goes alone. */
  readonly maxChars: number;
  /** INSERTs on their way at once; appends that arrive meanwhile wait and go together. */
  readonly maxInFlight: number;
}

/** A group stays far below MySQL 5.7's 4 MiB `max_allowed_packet`: 256 Ki code units are at most 768 KiB of UTF-8. */
export const DEFAULT_APPEND_GROUPING: AppendGrouping = { maxRows: 100, maxChars: 256 * 1024, maxInFlight: 2 };

interface Waiting {
  readonly text: string;
  readonly resolve: (id: number) => void;
  readonly reject: (e: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

/**
 * Group commit for the HTTP ingress: appends that arrive while `maxInFlight` INSERTs are on their
 * way are written together by the next one, a multi-row INSERT that commits all its rows at once.
 * The upstream's MySQL then takes one statement and one redo-log flush per group instead of per
 * request (docs/mailbox.md "Appends that arrive together").
 *
 * `insertMany(texts)` must insert the texts in order in one statement and return their ids in the
 * same order; `insertOne` is the single-row statement. A group refused by the server for a reason
 * of its rows (a text too long for the column, a character it cannot store) is written again row
 * by row, so only the offending append fails; an outage or an unknown outcome (`COMMIT_UNKNOWN`)
 * fails every append of the group with it, as a single append would.
 */
export class GroupedAppends {
  readonly #insertMany: (texts: readonly string[]) => Promise<readonly number[]>;
  readonly #insertOne: (text: string) => Promise<number>;
  readonly #grouping: AppendGrouping;
  readonly #waiting: Waiting[] = [];
  #inFlight = 0;

  constructor(insertMany: (texts: readonly string[]) => Promise<readonly number[]>, insertOne: (text: string) => Promise<number>, grouping: AppendGrouping) {
    this.#insertMany = insertMany;
    this.#insertOne = insertOne;
    this.#grouping = grouping;
  }

  /** Resolves with the row's id once the INSERT that carried it committed. */
  append(text: string, signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<number>((resolve, reject) => {
      const waiting: Waiting = {
        text,
        resolve,
        reject,
        signal,
        // Aborted while still waiting: it leaves the queue and is never written.
        onAbort: () => {
          const at = this.#waiting.indexOf(waiting);
          if (at < 0) return;
          this.#waiting.splice(at, 1);
          reject(signal!.reason);
        },
      };
      signal?.addEventListener("abort", waiting.onAbort, { once: true });
      this.#waiting.push(waiting);
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.#grouping.maxInFlight && this.#waiting.length > 0) {
      const group = this.#takeGroup();
      this.#inFlight += 1;
      void this.#write(group).finally(() => {
        this.#inFlight -= 1;
        this.#pump();
      });
    }
  }

  /** The oldest waiting appends that fit one INSERT (at least one). */
  #takeGroup(): Waiting[] {
    const { maxRows, maxChars } = this.#grouping;
    let chars = 0;
    let n = 0;
    while (n < this.#waiting.length && n < maxRows) {
      const next = this.#waiting[n]!.text.length;
      if (n > 0 && chars + next > maxChars) break;
      chars += next;
      n += 1;
    }
    const group = this.#waiting.splice(0, n);
    for (const w of group) w.signal?.removeEventListener("abort", w.onAbort);
    return group;
  }

  async #write(group: readonly Waiting[]): Promise<void> {
    if (group.length === 1) return settle(group[0]!, this.#insertOne(group[0]!.text));
    let ids: readonly number[];
    try {
      ids = await this.#insertMany(group.map((w) => w.text));
    } catch (e) {
      if (isMsgxError(e) && (e.kind === "COMMIT_UNKNOWN" || e.kind === "DEPENDENCY_UNAVAILABLE")) {
        for (const w of group) w.reject(e);
        return;
      }
      // The statement wrote nothing (it is atomic): find the row it was about, one by one, in order.
      for (const w of group) await settle(w, this.#insertOne(w.text));
      return;
    }
    group.forEach((w, i) => w.resolve(ids[i]!));
  }
}

async function settle(w: Waiting, id: Promise<number>): Promise<void> {
  try {
    w.resolve(await id);
  } catch (e) {
    w.reject(e);
  }
}
