import type { Clock } from "./clock.js";

/** A clock that moves only when told to. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start = Date.UTC(2026, 2, 5, 0, 0, 0)) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  advance(ms: number): void {
    if (ms < 0) throw new RangeError("a clock never goes back");
    this.#now += ms;
  }
  set(instant: number): void {
    if (instant < this.#now) throw new RangeError("a clock never goes back");
    this.#now = instant;
  }
}
