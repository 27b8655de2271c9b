import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SimulatedCrashMarker } from "../../src/runtime/simulated-crash.js";
import { dttmToEpochMs } from "../../src/requests/dttm-instant.js";
import type { RequestParams, RequestRecord } from "../../src/requests/request-record.js";
import { isAnswerableRequest, isOpenRequest } from "../../src/requests/request-status.js";
import { RequestsWorld, refMsg, schdResp } from "./requests-world.js";

/** Runs of the property; `MSGX_MODEL_RUNS` and `MSGX_SEED` reproduce or deepen a run, as for the pipeline model. */
const RUNS = Number(process.env["MSGX_MODEL_RUNS"] ?? 1_000);
const SEED = Number(process.env["MSGX_SEED"] ?? Date.now() % 2_147_483_647);

const KINDS: readonly RequestParams[] = [
  { kind: "RQFD", from: "2026-03-06T00:00", to: "2026-03-06T23:59" },
  { kind: "RQRD", rtype: "ARPT" },
  { kind: "RQRD", rtype: "REGN" },
];
const TYPES = ["RQFD", "RQRD/ARPT", "RQRD/REGN"] as const;

type Command =
  | { readonly t: "request"; readonly which: number }
  | { readonly t: "step" }
  | { readonly t: "advance"; readonly ms: number }
  /**
   * A reply stamped `skewMs` from now, of type `which` (0–2), or (3–5) of the type last asked for;
   * `bad`: out of range (RQFD) or a key twice (reference); `pumpCrash`: the pump dies before
   * the commit of the run that holds it, and restarts.
   */
  | { readonly t: "reply"; readonly which: number; readonly skewMs: number; readonly bad: boolean; readonly pumpCrash: boolean }
  /** The upstream sends an earlier reply again (same identity). */
  | { readonly t: "duplicate"; readonly pick: number }
  | { readonly t: "outbound"; readonly fault: "down" | "up" | "commit-unknown" | "find-fails" }
  /** The process dies at a failpoint while it asks for `which` (or, with nothing to send, does not). */
  | { readonly t: "crash"; readonly point: "request.after-claim" | "request.after-insert"; readonly which: number }
  | { readonly t: "pickup"; readonly pick: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant("request" as const), which: fc.nat(2) }) },
  { weight: 3, arbitrary: fc.constant({ t: "step" as const }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("advance" as const), ms: fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 900_000 })) }) },
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant("reply" as const),
      which: fc.nat(5),
      skewMs: fc.oneof(fc.integer({ min: -4_000, max: 1_000 }), fc.integer({ min: 0, max: 120_000 })),
      bad: fc.constantFrom(false, false, false, true),
      pumpCrash: fc.constantFrom(false, false, false, false, true),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("duplicate" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("outbound" as const), fault: fc.constantFrom("down" as const, "up" as const, "commit-unknown" as const, "find-fails" as const) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("crash" as const), point: fc.constantFrom("request.after-claim" as const, "request.after-insert" as const), which: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("pickup" as const), pick: fc.nat() }) },
);

const stats = { runs: 0, commands: 0, crashes: 0, replies: {} as Record<string, number>, requests: {} as Record<string, number>, recoveredSends: 0 };
const count = (bag: Record<string, number>, key: string) => (bag[key] = (bag[key] ?? 0) + 1);

/** Survives a simulated crash of the coordinator: the process restarts (new coordinator and pump). */
async function crashSafe(w: RequestsWorld, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (!(e instanceof SimulatedCrashMarker)) throw e;
    stats.crashes += 1;
    w.restart();
  }
}

/** The outcome a reply must have, from the requests as they stand just before it is processed. */
function expectedOutcome(requests: readonly RequestRecord[], type: string, replyAt: number, bad: boolean): { outcome: RegExp; answers?: string } {
  const hit = requests.find((r) => r.requestType === type && isAnswerableRequest(r.status) && r.sentAt !== null && r.sentAt <= replyAt);
  if (hit === undefined) return { outcome: /^SKIPPED:no-request$/ };
  if (bad) return { outcome: /^DEAD:/ };
  return { outcome: /^SUCCEEDED$/, answers: hit.requestId };
}

async function run(cmds: readonly Command[]): Promise<void> {
  const w = new RequestsWorld({ timeoutMs: 600_000 });
  const closed = new Map<string, RequestRecord>();
  const replies: { id: number; raw: string }[] = [];
  let flid = 100_000;

  const check = async () => {
    const all = [...w.requests.tables.requests.values()];
    // A closed request never changes, whatever comes after (late replies, timeouts, crashes).
    for (const r of all) {
      const before = closed.get(r.requestId);
      if (before !== undefined) expect(r, `closed request ${r.requestId} changed`).toEqual(before);
      else if (!isOpenRequest(r.status)) closed.set(r.requestId, r);
    }
    for (const type of TYPES) expect(all.filter((r) => r.requestType === type && isOpenRequest(r.status)).length).toBeLessThanOrEqual(1);
    const answeredBy = new Map<number, string>();
    for (const r of all) {
      // No blind resend: each request's text is in COUTMSGS at most once, and SENT means its row is there.
      const rows = w.outbound.rows.filter((row) => row.rawXml === r.rawXml);
      expect(rows.length, `request ${r.requestId} written ${rows.length} times`).toBeLessThanOrEqual(1);
      if (r.outboundId !== null) expect(rows[0]?.id).toBe(r.outboundId);
      if (r.status === "SENT" || r.status === "WAITING" || r.status === "DONE") expect(r.outboundId).not.toBeNull();
      if (r.status === "DONE") {
        const m = r.match!;
        // Nothing older than sentAt is accepted; the DTTM was read at the airport's offset.
        expect(m.replyAt).toBeGreaterThanOrEqual(r.sentAt!);
        expect(dttmToEpochMs(m.replyDttm, 480)).toBe(m.replyAt);
        // A reply applies at most once.
        expect(answeredBy.has(m.msgId), `message ${m.msgId} answered two requests`).toBe(false);
        answeredBy.set(m.msgId, r.requestId);
        expect((await w.store.get(m.msgId))?.status).toBe("SUCCEEDED");
      }
    }
    // Nothing but a matched reply changed state: every SUCCEEDED reply closed a request.
    for (const { id } of replies) if ((await w.store.get(id))?.status === "SUCCEEDED") expect(answeredBy.has(id), `reply ${id} applied without closing a request`).toBe(true);
  };

  for (const c of cmds) {
    switch (c.t) {
      case "request":
        await crashSafe(w, () => w.coordinator.request(KINDS[c.which]!, "prop"));
        break;
      case "step":
        await crashSafe(w, () => w.coordinator.step());
        break;
      case "advance":
        w.clock.advance(c.ms);
        break;
      case "reply": {
        const last = [...w.requests.tables.requests.values()].at(-1)?.requestType;
        const type = c.which >= 3 && last !== undefined ? last : TYPES[c.which % 3]!;
        const dttm = w.dttm(c.skewMs);
        const seqn = w.nextSeqn();
        const raw =
          type === "RQFD"
            ? schdResp(seqn, dttm, [c.bad ? "07MAR260930" : "06MAR260930"], { firstFlid: flid++ })
            : refMsg(seqn, dttm, type.slice(5), "RESP", c.bad ? ["K1", "K1"] : ["K1", "K2"]);
        const expected = expectedOutcome([...w.requests.tables.requests.values()], type, dttmToEpochMs(dttm, 480)!, c.bad);
        const id = await w.arrive(raw);
        replies.push({ id, raw });
        if (c.pumpCrash) {
          w.pumpCrashNext = true;
          await crashSafe(w, () => w.drain());
          expect(await w.outcome(id), "a crashed run wrote something").toBe("PENDING");
          await check();
        }
        await w.drain();
        const outcome = await w.outcome(id);
        expect(outcome).toMatch(expected.outcome);
        if (expected.answers !== undefined) expect((await w.requests.get(expected.answers))?.match?.msgId).toBe(id);
        count(stats.replies, outcome.replace(/:.*$/, "") + (outcome.includes("no-request") ? ":no-request" : outcome.includes("ignored") ? ":ignored" : ""));
        break;
      }
      case "duplicate": {
        const earlier = replies[c.pick % Math.max(1, replies.length)];
        if (earlier === undefined) break;
        const id = await w.arrive(earlier.raw);
        await w.drain();
        expect(await w.outcome(id)).toBe(`SKIPPED:duplicate-of:${earlier.id}`);
        count(stats.replies, "duplicate");
        break;
      }
      case "outbound":
        if (c.fault === "down") w.outbound.faults.setDown(true);
        if (c.fault === "up") w.outbound.faults.setDown(false);
        if (c.fault === "commit-unknown") w.outbound.commitUnknownNext = true;
        if (c.fault === "find-fails") w.outbound.faults.failNext("find", 1, "DEPENDENCY_UNAVAILABLE");
        break;
      case "crash":
        w.failpoint = c.point;
        await crashSafe(w, () => w.coordinator.request(KINDS[c.which]!, "prop"));
        w.failpoint = undefined;
        break;
      case "pickup": {
        const row = w.outbound.rows[c.pick % Math.max(1, w.outbound.rows.length)];
        if (row !== undefined) w.outbound.pickUp(row.id);
        break;
      }
    }
    stats.commands += 1;
    await check();
  }
  // Recovery converges: with the mailbox back, every open request ends sent or expired, never written twice.
  w.outbound.faults.clear();
  w.outbound.commitUnknownNext = false;
  for (let i = 0; i < 4; i++) {
    w.clock.advance(200_000);
    await w.coordinator.step();
    await check();
  }
  for (const r of w.requests.tables.requests.values()) {
    expect(r.status).not.toBe("REGISTERED");
    count(stats.requests, r.status);
    if (r.sendAttempts > 1 && r.outboundId !== null) stats.recoveredSends += 1;
  }
  stats.runs += 1;
}

describe("requests property: interleavings of requests, replies, timeouts, faults and crashes", () => {
  it(`a closed request never changes, a reply applies at most once, nothing older than sentAt is accepted (${RUNS} runs)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 80, size: "medium" }), (cmds) => run(cmds)),
      { numRuns: RUNS, seed: SEED },
    );
    console.info(`[requests property] seed=${SEED} ${JSON.stringify(stats)}`);
    // The runs did real work: answers, refusals, recoveries and crashes all occurred.
    expect(stats.replies["SUCCEEDED"] ?? 0).toBeGreaterThan(RUNS / 2);
    expect(stats.replies["DEAD"] ?? 0).toBeGreaterThan(0);
    expect(stats.recoveredSends).toBeGreaterThan(0);
    expect(stats.crashes).toBeGreaterThan(0);
  }, 600_000);
});
