import type { MessageEnd } from "./api-types.js";

/** The statuses a message stays in until an operator acts: what the replay's result waits for. */
export const END_STATUSES: ReadonlySet<string> = new Set(["SUCCEEDED", "SKIPPED", "DEAD"]);

/**
 * A skip or failure reason in words, each `;`-separated part on its own: the pipeline's coded
 * reasons (`stale:<FLID>`, `no-flight:<FLID>`, `duplicate-of:<msgId>`, …, docs/operations.md) are
 * explained, any other text is kept as it is. `(+n)` after a FLID counts the other flights.
 */
export function reasonText(reason: string | null): string {
  if (reason === null || reason === "") return "no reason recorded";
  return reason
    .split(/;\s*/)
    .map((part) => {
      const m = /^([a-z-]+):(.+?)(?:\(\+(\d+)\))?$/.exec(part);
      if (!m) return part;
      const [, code, subject, more] = m;
      const others = more === undefined ? "" : ` and ${more} more`;
      switch (code) {
        case "stale":
          return `stale (its DTTM is older than flight ${subject}${others}'s last update)`;
        case "no-flight":
          return `no flight ${subject}${others} is stored`;
        case "already-deleted":
          return `flight ${subject}${others} is already deleted`;
        case "duplicate-of":
          return `a duplicate of message ${subject} (same identity)`;
        case "ignored":
          return `type ${subject} is ignored by the type policy`;
        default:
          return part;
      }
    })
    .join("; ");
}

/** How a message ended, as a sentence: `SKIPPED: stale (…)`, `SUCCEEDED (applied)`, `DEAD: EXHAUSTED — …`. */
export function endText(end: MessageEnd): string {
  switch (end.status) {
    case "SUCCEEDED":
      return "SUCCEEDED (applied)";
    case "SKIPPED":
      return `SKIPPED: ${reasonText(end.reason)}`;
    case "PENDING":
      return "PENDING (not processed yet)";
    default:
      return `${end.status}: ${end.errorClass ?? "no class"} — ${reasonText(end.reason)}`;
  }
}

/** The preview's prediction: `would be SKIPPED: stale (…)`, `would fail again: INFRA — …`. */
export function predictionText(end: MessageEnd): string {
  return end.status === "FAILED" || end.status === "DEAD" ? `would fail again: ${end.errorClass ?? "no class"} — ${reasonText(end.reason)}` : `would be ${endText(end)}`;
}
