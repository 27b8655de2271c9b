import type { Target } from "../outbox/outbox-event.js";
import type { Processor, ProcessorTable } from "../processing/processor.js";

/**
 * The delivery targets the processors gave events to since the last `take`. The router wakes only
 * those targets' dispatchers after a committed run, so a run of flight updates does not send the
 * reference dispatcher to read an outbox that holds nothing for it. Every outbox event of a run
 * comes from a processor's `applied` result. A result whose run did not commit still counts: an
 * extra wake-up costs one read, a missing one would cost a poll interval of latency.
 */
export class WrittenTargets {
  readonly #seen = new Set<Target>();

  /** `table` with every processor's `applied` events noted here; the results pass unchanged. */
  watch(table: ProcessorTable): ProcessorTable {
    const watched: Record<string, Processor> = {};
    for (const [kind, processor] of Object.entries(table) as [string, Processor | undefined][]) {
      if (!processor) continue;
      watched[kind] = {
        flightsOf: (body) => processor.flightsOf(body),
        apply: (body, ctx) => {
          const result = processor.apply(body, ctx);
          if (result.type === "applied") for (const e of result.events) this.#seen.add(e.target);
          return result;
        },
      };
    }
    return watched as ProcessorTable;
  }

  /** The targets noted since the last call; forgets them. */
  take(): ReadonlySet<Target> {
    const seen = new Set(this.#seen);
    this.#seen.clear();
    return seen;
  }
}
