/**
 * A computation that may pause: it yields where a caller may let other work run, and returns its
 * result. Pure code stays synchronous; only the caller decides whether a yield waits.
 */
export type Stepped<T> = Generator<void, T, void>;

/** Drives a stepped computation to its result without pausing. */
export function runToEnd<T>(steps: Stepped<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/** `items.map(fn)`, yielding after every `every` items while more remain. */
export function* mapInSteps<T, R>(items: readonly T[], fn: (item: T, index: number) => R, every: number): Stepped<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i++) {
    if (i > 0 && i % every === 0) yield;
    out.push(fn(items[i]!, i));
  }
  return out;
}
