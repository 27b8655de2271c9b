import { errorMessage } from "@msgx/core";
import type { Clock } from "@msgx/core";
import { silentLogger, type Logger } from "@msgx/core";
import type { ReliableMessageCommand } from "./message-machine.js";
import { isReliableMessageError } from "./reliable-message-error.js";
import type { ReliableMessageOptions } from "./reliable-message-options.js";
import type { ReliableMessageService } from "./reliable-message-service.js";
import type { ReliableMessageStore } from "./reliable-message-store.js";
import { ReliableMessageStatus, type ReliableMessage } from "./reliable-message.js";
import type { ValueOf } from "@msgx/core";

/** A producer's answer about one of its WAITING_CONFIRM messages. */
export const CheckVerdict = {
  /** The business action committed: confirm and send. */
  CONFIRM: "confirm",
  /**
   * The business action did not commit and never will: cancel the message unsent. Only answer
   * this when a late commit is impossible (the transaction is over, or the checker fenced it, e.g.
   * by writing a "cancelled" row under the business key); otherwise answer LATER.
   */
  DELETE: "delete",
  /** Cannot tell yet: ask again later. */
  LATER: "later",
} as const;
export type CheckVerdict = ValueOf<typeof CheckVerdict>;

/** The HTTP checker's names, accepted as aliases: `cancel` is DELETE, `unknown` is LATER. */
export const CHECK_VERDICT_ALIASES: Readonly<Record<string, CheckVerdict>> = { cancel: CheckVerdict.DELETE, unknown: CheckVerdict.LATER };

/** A checker's answer as a verdict (the three names and the aliases), undefined for anything else. */
export function normalizeCheckVerdict(answer: unknown): CheckVerdict | undefined {
  if (answer === CheckVerdict.CONFIRM || answer === CheckVerdict.DELETE || answer === CheckVerdict.LATER) return answer;
  return typeof answer === "string" && Object.prototype.hasOwnProperty.call(CHECK_VERDICT_ALIASES, answer) ? CHECK_VERDICT_ALIASES[answer] : undefined;
}

/** Asks the producer of one queue about a message (seed: `rpTradePaymentQueryService` by field1). */
export type ReliableMessageChecker = (message: ReliableMessage, signal?: AbortSignal) => Promise<CheckVerdict | "cancel" | "unknown">;

/** What the job learned from the producer. */
export type CheckAnswer =
  | { readonly kind: "verdict"; readonly verdict: CheckVerdict }
  | { readonly kind: "error"; readonly error: string }
  | { readonly kind: "no-checker" };

export interface CheckBackDecision {
  readonly command: ReliableMessageCommand;
  /** True when the check was inconclusive and the message reached `maxChecks`: raise an alert. */
  readonly alert: boolean;
}

/**
 * Pure: what to do with a WAITING_CONFIRM message after asking its producer. A verdict confirms or
 * cancels; anything else (later, a failing checker, no checker for the queue) defers the next
 * check (the wait doubles up to `maxCheckIntervalMs`), and from the `maxChecks`-th inconclusive
 * check on also raises an alert; with `afterMaxChecks: "dead"` that check holds the message for
 * review instead. The message is never dropped for being unanswered.
 */
export function decideCheckBack(message: ReliableMessage, answer: CheckAnswer, options: ReliableMessageOptions): CheckBackDecision {
  if (answer.kind === "verdict" && answer.verdict === CheckVerdict.CONFIRM) return { command: { type: "confirm", by: "check-back" }, alert: false };
  if (answer.kind === "verdict" && answer.verdict === CheckVerdict.DELETE) return { command: { type: "cancel", by: "check-back" }, alert: false };
  const alert = message.checkCount + 1 >= options.maxChecks;
  return { command: alert && options.afterMaxChecks === "dead" ? { type: "review" } : { type: "defer-check" }, alert };
}

/** What one `step` did. */
export interface CheckBackStep {
  readonly checked: number;
  readonly confirmed: number;
  readonly deleted: number;
  readonly deferred: number;
  /** Held for review (`afterMaxChecks: "dead"`). */
  readonly reviewed: number;
  readonly alerts: number;
  /** Messages another writer changed between the scan and the decision (confirmed, cancelled). */
  readonly raced: number;
  /** True when the batch was full and did work: call again at once. */
  readonly more: boolean;
}

export interface CheckBackJobDeps {
  readonly service: ReliableMessageService;
  readonly store: ReliableMessageStore;
  readonly clock: Clock;
  readonly logger?: Logger;
}

/**
 * The check-back job (seed "消息状态确认子系统", `handleWaitingConfirmTimeOutMessages`): asks the
 * producer about every WAITING_CONFIRM message whose check is due, through the checker
 * registered for its queue, and confirms, deletes or defers it. `step` does one batch and never
 * sleeps; the host calls it on a timer (again at once while `more`).
 *
 * Store outages propagate from `step` (the host backs off); a checker that throws or answers
 * nonsense is an inconclusive check, logged.
 */
export class CheckBackJob {
  readonly #deps: CheckBackJobDeps;
  readonly #logger: Logger;
  readonly #batchSize: number;
  readonly #checkers = new Map<string, ReliableMessageChecker>();
  #alerts = 0;

  constructor(deps: CheckBackJobDeps, options: { readonly batchSize?: number } = {}) {
    this.#deps = deps;
    this.#logger = deps.logger ?? silentLogger;
    this.#batchSize = options.batchSize ?? 100;
    if (!Number.isSafeInteger(this.#batchSize) || this.#batchSize < 1) throw new RangeError(`batchSize must be a positive integer: ${this.#batchSize}`);
  }

  /** Registers the checker of `queue`. A queue has one checker: a second registration throws. */
  registerChecker(queue: string, checker: ReliableMessageChecker): void {
    if (this.#checkers.has(queue)) throw new Error(`a checker for queue ${queue} is already registered`);
    this.#checkers.set(queue, checker);
  }

  /** Alerts raised since this job was built (inconclusive checks at or past `maxChecks`). */
  get alertCount(): number {
    return this.#alerts;
  }

  async step(signal?: AbortSignal): Promise<CheckBackStep> {
    const { service, store, clock } = this.#deps;
    const due = await store.due(ReliableMessageStatus.WAITING_CONFIRM, clock.now(), this.#batchSize);
    const counts = { checked: 0, confirmed: 0, deleted: 0, deferred: 0, reviewed: 0, alerts: 0, raced: 0 };
    for (const message of due) {
      signal?.throwIfAborted();
      counts.checked += 1;
      const answer = await this.#ask(message, signal);
      const decision = decideCheckBack(message, answer, service.options);
      try {
        const outcome = await service.execute(message.messageId, decision.command, message, { kind: "check-back", answer: checkAnswerText(answer) });
        if (!outcome.applied) {
          counts.raced += 1;
          continue;
        }
      } catch (e) {
        if (!isReliableMessageError(e)) throw e;
        counts.raced += 1;
        continue;
      }
      if (decision.command.type === "confirm") counts.confirmed += 1;
      else if (decision.command.type === "cancel") counts.deleted += 1;
      else if (decision.command.type === "review") counts.reviewed += 1;
      else counts.deferred += 1;
      if (decision.alert) {
        counts.alerts += 1;
        this.#alerts += 1;
        this.#logger.error(decision.command.type === "review" ? "reliable message: check-back gave up, held for review" : "reliable message: producer check-back still inconclusive", {
          messageId: message.messageId,
          queue: message.consumerQueue,
          checks: message.checkCount + 1,
          answer: checkAnswerText(answer),
        });
      }
    }
    return { ...counts, more: due.length === this.#batchSize && counts.raced < counts.checked };
  }

  async #ask(message: ReliableMessage, signal: AbortSignal | undefined): Promise<CheckAnswer> {
    const checker = this.#checkers.get(message.consumerQueue);
    if (checker === undefined) {
      this.#logger.warn("reliable message: no checker registered for queue", { messageId: message.messageId, queue: message.consumerQueue });
      return { kind: "no-checker" };
    }
    try {
      const answer = await checker(message, signal);
      const verdict = normalizeCheckVerdict(answer);
      if (verdict !== undefined) return { kind: "verdict", verdict };
      throw new Error(`checker answered ${JSON.stringify(answer)}`);
    } catch (e) {
      signal?.throwIfAborted();
      this.#logger.warn("reliable message: check-back failed", { messageId: message.messageId, queue: message.consumerQueue, error: errorMessage(e) });
      return { kind: "error", error: errorMessage(e) };
    }
  }
}

/** A check-back answer as the log and the message's history name it. */
const checkAnswerText = (answer: CheckAnswer): string => (answer.kind === "verdict" ? answer.verdict : answer.kind === "error" ? answer.error : "no checker registered");
