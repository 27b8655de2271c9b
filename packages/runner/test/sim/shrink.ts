import { FAULT_KINDS, type FaultKind } from "./sim-scheduler.js";
import { simulate, type SimOptions } from "./simulate.js";

export interface Shrunk {
  /** The kinds of fault still on. */
  readonly kinds: readonly FaultKind[];
  /** The upstream messages the run still needs. */
  readonly messages: number;
  readonly faults: number;
  readonly failure: string;
  /** The readable trace: faults, leadership, the upstream's inserts, the failure; the operations between them left out. */
  readonly summary: readonly string[];
}

/** Trace lines a reader needs: the faults, leadership, the upstream, the failure. */
const readable = (line: string): boolean => /FAULT#|leads with|stopped:|exited:|wakes|faults end|FAILED|upstream|client|producer of/.test(line);

/**
 * Shrinks a failing seed, keeping the seed: turns off whole kinds of fault while it still fails,
 * then shortens the upstream's stream, then masks single fault points (delta debugging: ever
 * smaller chunks). Every removal changes the interleaving after it, so each step keeps a removal
 * only when the run still fails.
 */
export async function shrink(seed: number, options: { readonly mutate?: SimOptions["mutate"] } = {}): Promise<Shrunk> {
  let without = new Set<FaultKind>();
  let messages = Number.POSITIVE_INFINITY;
  let masked = new Set<number>();
  const run = (o: { without?: Set<FaultKind>; messages?: number; masked?: Set<number>; trace?: boolean }) =>
    simulate(seed, { without: o.without ?? without, messages: o.messages ?? messages, masked: o.masked ?? masked, ...(o.trace ? { trace: true } : {}), ...(options.mutate ? { mutate: options.mutate } : {}) });
  const first = await run({});
  if (first.failure === undefined) throw new Error(`seed ${seed} does not fail`);
  for (const kind of FAULT_KINDS) {
    const trial = new Set([...without, kind]);
    if ((await run({ without: trial })).failure !== undefined) without = trial;
  }
  for (let n = first.messages; n >= 1; n = Math.floor(n / 2)) {
    if ((await run({ messages: n })).failure === undefined) break;
    messages = n;
  }
  let on = [...Array((await run({})).faultPoints).keys()];
  for (let chunk = Math.max(1, Math.floor(on.length / 2)); chunk >= 1 && on.length > 0; chunk = Math.floor(chunk / 2)) {
    for (let i = 0; i < on.length; ) {
      const trial = new Set([...masked, ...on.slice(i, i + chunk)]);
      if ((await run({ masked: trial })).failure !== undefined) {
        masked = trial;
        on = on.filter((p) => !trial.has(p));
      } else {
        i += chunk;
      }
    }
  }
  const final = await run({ trace: true });
  return {
    kinds: FAULT_KINDS.filter((k) => !without.has(k)),
    messages: final.messages,
    faults: final.faults,
    failure: final.failure ?? first.failure,
    summary: (final.lines ?? []).filter(readable),
  };
}
