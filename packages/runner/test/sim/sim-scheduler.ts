import { ManualClock } from "@msgx/core/fakes";
import { MsgxError, type Clock, type TimerHandle, type Timers } from "@msgx/core";

/** mulberry32: the one source of randomness of a simulated run, seeded by `MSGX_SIM_SEED`. */
export class Prng {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
}

interface PendingOp {
  readonly id: number;
  readonly owner: string;
  readonly label: string;
  readonly dep: string;
  readonly method: string;
  readonly args: readonly unknown[];
  /** The port's method and the port it is called on: the operation's effect. */
  readonly fn: (...args: unknown[]) => Promise<unknown>;
  readonly target: object;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
}

interface VirtualTimer extends TimerHandle {
  readonly id: number;
  at: number;
  readonly owner: string;
  readonly fn: () => void;
  readonly every: number | undefined;
  cancelled: boolean;
}

/** The kinds of fault a run injects (issue 35, item 2); the shrinker turns whole kinds off. */
export const FAULT_KINDS = ["outage", "crash", "freeze", "clock-jump", "clock-back", "refused", "lost", "unknown", "partial", "owner"] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The odds of each fault at one completed operation; the budget caps faults per run. */
export interface FaultOdds {
  /** The caller of a transaction freezes just before it commits, for longer than its lease (a GC pause, a stopped VM). */
  readonly freeze: number;
  /** The broker refuses a send's records (a fault of the records, not an outage: the relay spends an attempt). */
  readonly refused: number;
  readonly lost: number;
  readonly unknown: number;
  readonly partial: number;
}

const READ = /^(get|list|head|pending|due|scan|read|count|status|intake|unfinished|find|open|audits|snapshot|lineage|retired|archived|exists)/;

/**
 * The seeded scheduler of the simulation: one virtual clock, one PRNG. Every port call of a
 * simulated runner becomes a pending operation; at each step the scheduler either completes one
 * of them (chosen by the PRNG, possibly with a fault: lost before its effect, effect done but the
 * answer lost, a Kafka batch partly sent) or moves the virtual clock to the next timer. A crashed
 * runner's operations and timers are dropped; a frozen runner's wait until it thaws.
 */
export class SimScheduler {
  /** True time: the timers, the monotonic clocks, the databases' and the broker's clocks. */
  readonly clock = new ManualClock();
  /** How far the runners' hosts' wall clock is from true time (an NTP step moves it back). */
  wallOffset = 0;
  /**
   * The runners' wall clock (`Date.now()` in production): true time plus `wallOffset`, so it goes
   * back when the offset falls, as a host's clock does on an NTP step. Timers and the lease
   * keeper's monotonic clock stay on `clock`.
   */
  readonly wall: Clock = { now: () => this.clock.now() + this.wallOffset, monotonic: () => this.clock.monotonic() };
  readonly rng: Prng;
  readonly start = this.clock.monotonic();
  /** One line per event; kept only when tracing. */
  readonly lines: string[] | undefined;
  /** Whether the trace's lines are hashed (traced, or the fingerprint asked for); when not, none is built. */
  readonly logging: boolean;
  #hash = 0x811c9dc5;
  #pending: PendingOp[] = [];
  #timers: VirtualTimer[] = [];
  #nextId = 1;
  #closed = false;
  readonly frozen = new Set<string>();
  readonly dead = new Set<string>();
  /** Dependencies down until the instant (virtual ms). */
  readonly outages = new Map<string, number>();
  /** Fault decision points masked by the shrinker (by their index among the would-be faults). */
  readonly masked: ReadonlySet<number>;
  /** Kinds of fault the shrinker turned off. */
  readonly without: ReadonlySet<FaultKind>;
  /** Faults drawn so far (masked or not): the index of the next. */
  faultPoints = 0;
  faultsInjected = 0;
  ops = 0;
  /** Sees every completed operation (the checks that watch writers); `ok`: its effect took place (for a partly sent batch, in part). */
  onCompleted: ((op: { owner: string; dep: string; method: string; args: readonly unknown[]; ok: boolean }) => void) | undefined;

  constructor(
    seed: number,
    public odds: FaultOdds,
    options: { trace?: boolean; fingerprint?: boolean; masked?: ReadonlySet<number>; without?: ReadonlySet<FaultKind> } = {},
  ) {
    this.rng = new Prng(seed);
    this.lines = options.trace ? [] : undefined;
    this.logging = options.trace === true || options.fingerprint === true;
    this.masked = options.masked ?? new Set();
    this.without = options.without ?? new Set();
  }

  /** The run's fingerprint: a hash of every trace line (the determinism check compares it); undefined when not logging. */
  get fingerprint(): string | undefined {
    return this.logging ? (this.#hash >>> 0).toString(16).padStart(8, "0") : undefined;
  }

  /**
   * Ends the run's trace: a continuation still pending when the run returns (an answer that reaches
   * its caller after the last step) must not add a line to a trace the caller already holds.
   */
  close(): void {
    this.#closed = true;
  }

  log(line: string): void {
    if (!this.logging || this.#closed) return;
    // The line is `+<instant, padded to 7> <line>`; it is hashed in parts, and built only when traced.
    const at = String(this.clock.monotonic() - this.start);
    this.#hashText("+");
    for (let pad = at.length; pad < 7; pad++) this.#hashText(" ");
    this.#hashText(at);
    this.#hashText(" ");
    this.#hashText(line);
    this.lines?.push(`+${at.padStart(7)} ${line}`);
  }

  /** FNV-1a over the text's UTF-16 code units. */
  #hashText(text: string): void {
    let hash = this.#hash;
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16_777_619);
    this.#hash = hash;
  }

  /** Draws a fault decision: true when the PRNG says so and the shrinker did not mask this point. */
  fault(kind: FaultKind, p: number, what: string): boolean {
    return this.rng.chance(p) && this.#inject(kind, what);
  }

  /** A fault the PRNG drew: injected (and traced) unless the shrinker masked its point or its kind. */
  #inject(kind: FaultKind, what: string): boolean {
    const point = this.faultPoints++;
    if (this.masked.has(point) || this.without.has(kind)) return false;
    this.faultsInjected += 1;
    this.log(`FAULT#${point} ${what}`);
    return true;
  }

  /** The virtual timers of `owner` (a runner, or the world). */
  timersFor(owner: string): Timers {
    const set = (fn: () => void, ms: number, every: number | undefined): TimerHandle => {
      const timer: VirtualTimer = { id: this.#nextId++, at: this.clock.monotonic() + Math.max(0, ms), owner, fn, every, cancelled: false, unref: () => timer };
      this.#insert(timer);
      return timer;
    };
    const clear = (h: TimerHandle | undefined) => {
      if (h) (h as VirtualTimer).cancelled = true;
    };
    return { setTimeout: (fn, ms) => set(fn, ms, undefined), clearTimeout: clear, setInterval: (fn, ms) => set(fn, ms, Math.max(1, ms)), clearInterval: clear };
  }

  #insert(timer: VirtualTimer): void {
    let i = this.#timers.length;
    while (i > 0 && (this.#timers[i - 1]!.at > timer.at || (this.#timers[i - 1]!.at === timer.at && this.#timers[i - 1]!.id > timer.id))) i--;
    this.#timers.splice(i, 0, timer);
  }

  /** Wraps `target` so each call of its async `methods` is a pending operation of `owner` on `dep`. */
  port<T extends object>(target: T, dep: string, owner: string, methods: readonly string[]): T {
    const wrapped = new Set(methods);
    // Per member, the function handed out for the method it last had (a mutation may replace a method).
    const handed = new Map<string, { readonly method: unknown; readonly fn: unknown }>();
    return new Proxy(target, {
      get: (t, key, receiver) => {
        const value = Reflect.get(t, key, receiver) as unknown;
        if (typeof key !== "string" || typeof value !== "function") return value;
        const known = handed.get(key);
        if (known?.method === value) return known.fn;
        const method = value as (...x: unknown[]) => Promise<unknown>;
        const label = `${owner} ${dep}.${key}`;
        const fn = wrapped.has(key) ? (...args: unknown[]) => this.#call(owner, label, dep, key, args, method, t) : method.bind(t);
        handed.set(key, { method: value, fn });
        return fn;
      },
    });
  }

  #call(owner: string, label: string, dep: string, method: string, args: readonly unknown[], fn: (...args: unknown[]) => Promise<unknown>, target: object): Promise<unknown> {
    if (this.dead.has(owner)) return new Promise(() => undefined);
    return new Promise((resolve, reject) => {
      this.#pending.push({ id: this.#nextId++, owner, label, dep, method, args, fn, target, resolve, reject });
    });
  }

  /** Lets every runnable continuation run until each waits on an operation or a timer. */
  settle(): Promise<void> {
    return new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** Whether `owner`'s operations and timers may go on (it is neither frozen nor dead). */
  #running(owner: string): boolean {
    return !this.frozen.has(owner) && !this.dead.has(owner);
  }

  /**
   * One step: completes one pending operation of a runner that is neither frozen nor dead, or (when
   * none is, or the PRNG lets time pass) moves the clock to the next timer, at most to `end`.
   * False once nothing is left to do before `end`.
   */
  async step(end: number): Promise<boolean> {
    await this.settle();
    const pending = this.#pending;
    let ready = 0;
    for (const op of pending) if (this.#running(op.owner)) ready += 1;
    if (ready > 0 && !this.rng.chance(0.1)) {
      // The k-th ready operation, in the order the operations were called.
      let k = this.rng.int(ready);
      let at = 0;
      for (; !this.#running(pending[at]!.owner) || k-- > 0; at++);
      const op = pending[at]!;
      if ((op.method === "transaction" || op.method === "commitRun") && this.rng.chance(this.odds.freeze) && this.#inject("freeze", `${op.owner} freezes before its ${op.dep}.${op.method} commits`)) {
        this.freeze(op.owner, 3_000 + this.rng.int(6_000));
        return true;
      }
      pending.splice(at, 1);
      this.#complete(op);
      return true;
    }
    const next = this.#nextTimer();
    const latency = ready > 0 ? 1 + this.rng.int(40) : Number.POSITIVE_INFINITY;
    const to = Math.min(end, next ? Math.max(next.at, this.clock.monotonic()) : Number.POSITIVE_INFINITY, this.clock.monotonic() + latency);
    if (to === Number.POSITIVE_INFINITY) return false;
    if (to > this.clock.monotonic()) this.clock.advance(to - this.clock.monotonic());
    if (next && next.at <= this.clock.monotonic()) {
      this.#timers.splice(this.#timers.indexOf(next), 1);
      if (next.every !== undefined) {
        next.at = this.clock.monotonic() + next.every;
        this.#insert(next);
      }
      next.fn();
      return true;
    }
    return this.clock.monotonic() < end || ready > 0;
  }

  /** The earliest timer that may fire (its owner neither frozen nor dead); drops the cancelled ones it passes. */
  #nextTimer(): VirtualTimer | undefined {
    const timers = this.#timers;
    for (let i = 0; i < timers.length; ) {
      const t = timers[i]!;
      if (t.cancelled) timers.splice(i, 1);
      else if (this.#running(t.owner)) return t;
      else i++;
    }
    return undefined;
  }

  /** Completes `op` (its effect runs now; the answer reaches the caller at the next settle). */
  #complete(op: PendingOp): void {
    this.ops += 1;
    const down = (this.outages.get(op.dep) ?? Number.NEGATIVE_INFINITY) > this.clock.monotonic();
    const answered = (ok: boolean, outcome: string) => {
      if (this.logging) this.log(`${op.label} ${outcome}`);
      this.onCompleted?.({ owner: op.owner, dep: op.dep, method: op.method, args: op.args, ok });
    };
    // A runner that died meanwhile gets no answer.
    const resolve = (v: unknown) => void (this.dead.has(op.owner) || op.resolve(v));
    const reject = (e: unknown) => void (this.dead.has(op.owner) || op.reject(e));
    if (down) {
      answered(false, "DOWN");
      reject(new MsgxError("DEPENDENCY_UNAVAILABLE", `${op.dep} is down (simulated outage)`));
      return;
    }
    // Each fault is drawn at every operation (the PRNG's stream does not depend on the trace); its line is built only when it is injected.
    if (this.rng.chance(this.odds.lost) && this.#inject("lost", `${op.label}: timed out before its effect`)) {
      answered(false, "LOST");
      reject(new MsgxError("DEPENDENCY_UNAVAILABLE", `${op.dep}.${op.method} timed out (simulated, no effect)`));
      return;
    }
    const records = op.method === "send" && Array.isArray(op.args[0]) ? (op.args[0] as readonly unknown[]) : undefined;
    if (records && this.rng.chance(this.odds.refused) && this.#inject("refused", `${op.label}: broker refuses the records`)) {
      answered(false, "REFUSED");
      reject(new MsgxError("INFRA", "broker refused the records (simulated NOT_ENOUGH_REPLICAS)", { retriable: true }));
      return;
    }
    if (records && records.length > 1 && this.rng.chance(this.odds.partial) && this.#inject("partial", `${op.label}: batch of ${records.length} partly sent`)) {
      const k = 1 + this.rng.int(records.length - 1);
      void op.fn.apply(op.target, [records.slice(0, k), ...op.args.slice(1)]).then(
        () => {
          // Its effect (a prefix) is done: completed as an answer lost is.
          answered(true, `PARTIAL ${k}/${records.length}`);
          reject(new MsgxError("DEPENDENCY_UNAVAILABLE", `broker timed out after ${k} of ${records.length} records (simulated)`));
        },
        (e: unknown) => {
          answered(false, `ERR ${e instanceof MsgxError ? e.kind : "?"}`);
          reject(e);
        },
      );
      return;
    }
    const unknown = this.rng.chance(this.odds.unknown) && this.#inject("unknown", `${op.label}: done, answer lost`);
    void op.fn.apply(op.target, op.args as unknown[]).then(
      (result) => {
        if (!unknown) {
          answered(true, "ok");
          resolve(result);
          return;
        }
        answered(true, "UNKNOWN");
        const kind = READ.test(op.method) || op.dep === "kafka" ? "DEPENDENCY_UNAVAILABLE" : "COMMIT_UNKNOWN";
        reject(new MsgxError(kind, `${op.dep}.${op.method}: answer lost (simulated; it did take effect)`));
      },
      (e: unknown) => {
        answered(false, `ERR ${e instanceof MsgxError ? e.kind : "?"}`);
        reject(e);
      },
    );
  }

  /** Freezes `owner` for `ms`: none of its operations completes, none of its timers fires, until it wakes. */
  freeze(owner: string, ms: number): void {
    this.frozen.add(owner);
    this.timersFor("scheduler").setTimeout(() => {
      this.frozen.delete(owner);
      this.log(`${owner} wakes`);
    }, ms);
  }

  /** A crash of `owner`: its pending operations never answer (each may or may not have taken effect), its timers never fire. */
  kill(owner: string): void {
    this.dead.add(owner);
    const mine = this.#pending.filter((op) => op.owner === owner);
    this.#pending = this.#pending.filter((op) => op.owner !== owner);
    for (const op of mine) {
      if (!this.rng.chance(0.5)) continue;
      this.log(`${op.label} applied as the process died`);
      void op.fn.apply(op.target, op.args as unknown[]).then(
        () => this.onCompleted?.({ owner: op.owner, dep: op.dep, method: op.method, args: op.args, ok: true }),
        () => undefined,
      );
    }
    this.#timers = this.#timers.filter((t) => t.owner !== owner);
  }

  get pendingCount(): number {
    return this.#pending.length;
  }
}
