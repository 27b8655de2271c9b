import { MsgxError, type ErrorKind } from "../errors/msgx-error.js";

/**
 * Fault hooks shared by the in-memory fakes: a dependency that is down, the next N calls failing
 * with a given kind, and named operations failing. Each fake consults it at the top of every call.
 */
export class FaultPlan {
  #down = false;
  readonly #queued = new Map<string, { kind: ErrorKind; left: number }>();

  constructor(readonly dependency: string) {}

  /** While down, every call throws `DEPENDENCY_UNAVAILABLE`. */
  setDown(down: boolean): void {
    this.#down = down;
  }
  get down(): boolean {
    return this.#down;
  }

  /** The next `count` calls of `operation` (or of any operation with `"*"`) throw `kind`. */
  failNext(operation: string, count = 1, kind: ErrorKind = "INFRA"): void {
    this.#queued.set(operation, { kind, left: count });
  }

  clear(): void {
    this.#down = false;
    this.#queued.clear();
  }

  /** Called by a fake at the start of `operation`. */
  check(operation: string): void {
    if (this.#down) throw new MsgxError("DEPENDENCY_UNAVAILABLE", `${this.dependency} is down (simulated)`);
    for (const key of [operation, "*"]) {
      const q = this.#queued.get(key);
      if (q && q.left > 0) {
        q.left -= 1;
        if (q.left === 0) this.#queued.delete(key);
        throw new MsgxError(q.kind, `${this.dependency}.${operation} failed (simulated ${q.kind})`);
      }
    }
  }
}
