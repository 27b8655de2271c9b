import type { Clock } from "./clock.js";

/**
 * A clock that moves only when told to. `advance` and `set` move real time (both readings);
 * `jump` moves the wall clock alone, as an NTP step does, and leaves `monotonic()` where it was.
 */
export class ManualClock implements Clock {
  #monotonic = 0;
  #wallOffset: number;
  constructor(start = Date.UTC(2026, 2, 5, 0, 0, 0)) {
    this.#wallOffset = start;
  }
  now(): number {
    return this.#monotonic + this.#wallOffset;
  }
  monotonic(): number {
    return this.#monotonic;
  }
  advance(ms: number): void {
    if (ms < 0) throw new RangeError("a clock never goes back");
    this.#monotonic += ms;
  }
  set(instant: number): void {
    if (instant < this.now()) throw new RangeError("a clock never goes back");
    this.#monotonic += instant - this.now();
  }
  /** Moves the wall clock alone by `ms` (either direction); elapsed times are not affected. */
  jump(ms: number): void {
    this.#wallOffset += ms;
  }
}
