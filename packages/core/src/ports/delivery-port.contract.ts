import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isMsgxError } from "../errors/msgx-error.js";
import type { DeliveryPlacement, DeliveryPort, DeliveryRecord, ProducerFencing } from "./delivery-port.js";

/** A record as the broker holds it, and where. */
export interface PlacedRecord extends DeliveryRecord, DeliveryPlacement {}

/** One port per test, with two fresh, empty topics it may publish to. */
export interface DeliveryPortContractSubject {
  readonly port: DeliveryPort;
  readonly topics: readonly [string, string];
  /**
   * Every record of `topics` as the broker holds it (any order), once at least `count` have
   * arrived: read back independently of the port (a consumer, the files, the fake's log).
   */
  readBack(topics: readonly string[], count: number): Promise<readonly PlacedRecord[]>;
  /**
   * A port fenced per `fencing` (`ProducerFencing`) to the same broker; required with the
   * `fencing` feature. `close` closes every port it built.
   */
  fenced?(fencing: ProducerFencing): DeliveryPort;
  close(): Promise<void>;
}

/** What a port under test supports beyond the plain contract. */
export interface DeliveryPortContractFeatures {
  /** The subject builds ports fenced per transactional id (`fenced`). */
  readonly fencing?: boolean;
}

const at = (records: readonly PlacedRecord[], topic: string, p: DeliveryPlacement | null | undefined): PlacedRecord | undefined =>
  p ? records.find((r) => r.topic === topic && r.partition === p.partition && r.offset === p.offset) : undefined;

const content = (r: DeliveryRecord | undefined) => (r === undefined ? undefined : { topic: r.topic, key: r.key, value: r.value, headers: r.headers });

/**
 * The placements every `DeliveryPort` returns (see the port's JSDoc): one per record, in call
 * order, each naming the very record the broker holds there. The in-memory broker and the JSONL
 * files run it in unit specs, the Kafka port against a real broker. All of ours know every
 * placement; a port that cannot tell (null) does not fit this suite.
 */
export function describeDeliveryPortContract(name: string, factory: () => Promise<DeliveryPortContractSubject>, features: DeliveryPortContractFeatures = {}): void {
  describe(`DeliveryPort contract: ${name}`, () => {
    let subject: DeliveryPortContractSubject;
    beforeEach(async () => {
      subject = await factory();
    });
    afterEach(async () => {
      await subject.close();
    });

    const record = (topic: string, key: string, value: string | null, n: number): DeliveryRecord => ({
      topic,
      key,
      value,
      headers: { "msgx-event-id": String(n), "x-case": `航 ${n}` },
    });

    it("resolves to one placement per record, in call order, each where the broker holds that record", async () => {
      const [a, b] = subject.topics;
      const records = [
        record(a, "F1", '{"flid":"F1","v":1}', 1),
        record(b, "F1", '{"flid":"F1","v":1}', 2),
        record(a, "F2", '{"flid":"F2","v":1}', 3),
        record(a, "F1", null, 4),
        record(b, "REF:X", '{"k":"X"}', 5),
        record(a, "F3", '{"flid":"F3","v":1}', 6),
      ];
      const placements = await subject.port.send(records);
      expect(placements).toHaveLength(records.length);
      const held = await subject.readBack([a, b], records.length);
      expect(held).toHaveLength(records.length);
      records.forEach((r, i) => {
        expect(content(at(held, r.topic, placements[i])), `record ${i}`).toEqual(content(r));
      });
      expect(await subject.port.send([])).toEqual([]);
    });

    it("records of one call to one partition get ascending offsets, and a later call's come after them", async () => {
      const [a] = subject.topics;
      const first = await subject.port.send([record(a, "K", "1", 1), record(a, "K", "2", 2), record(a, "K", "3", 3)]);
      const second = await subject.port.send([record(a, "K", "4", 4), record(a, "K", "5", 5)]);
      const all = [...first, ...second];
      expect(all.every((p) => p !== null)).toBe(true);
      const offsets = all.map((p) => p!.offset);
      // One key: one partition, so the offsets are that partition's log order.
      expect(new Set(all.map((p) => p!.partition)).size).toBe(1);
      expect(offsets).toEqual([...offsets].sort((x, y) => x - y));
      expect(new Set(offsets).size).toBe(offsets.length);
      const held = await subject.readBack([a], 5);
      expect(all.map((p) => at(held, a, p)?.value)).toEqual(["1", "2", "3", "4", "5"]);
    });

    it("a resent record gets a placement of its own: the broker holds both copies", async () => {
      const [a] = subject.topics;
      const r = record(a, "F9", '{"flid":"F9"}', 9);
      const [once] = await subject.port.send([r]);
      const [again] = await subject.port.send([r]);
      expect(once).not.toBeNull();
      expect(again).not.toBeNull();
      expect(again).not.toEqual(once);
      const held = await subject.readBack([a], 2);
      expect(content(at(held, a, once))).toEqual(content(r));
      expect(content(at(held, a, again))).toEqual(content(r));
    });

    if (features.fencing) {
      const refused = (kind: string) => (e: unknown) => isMsgxError(e) && e.kind === kind;

      it("fencing: a later claim of the transactional id fences the earlier one; a claim that confirm denies sends nothing, for good", async () => {
        const [a] = subject.topics;
        const fenced = subject.fenced!;
        const transactionalId = `msgx-contract-${a}`;
        let oldLeads = true;
        const old = fenced({ transactionalId, confirm: async () => oldLeads });
        const newer = fenced({ transactionalId, confirm: async () => true });
        await old.send([record(a, "F1", "old-1", 1)]);
        await newer.send([record(a, "F1", "new-2", 2)]);
        oldLeads = false;
        // Its claim was fenced: refused as an outage (the caller spends no attempt), nothing lands.
        await expect(old.send([record(a, "F1", "old-3", 3)])).rejects.toSatisfy(refused("DEPENDENCY_UNAVAILABLE"));
        // It claims again (fencing the newer one), asks confirm, is denied: FENCED from now on.
        await expect(old.send([record(a, "F1", "old-4", 4)])).rejects.toSatisfy(refused("FENCED"));
        await expect(old.send([record(a, "F1", "old-5", 5)])).rejects.toSatisfy(refused("FENCED"));
        // The newer one was fenced by that claim: refused once, then it claims again and sends.
        await expect(newer.send([record(a, "F1", "new-6", 6)])).rejects.toSatisfy(refused("DEPENDENCY_UNAVAILABLE"));
        await newer.send([record(a, "F1", "new-7", 7)]);
        const held = await subject.readBack([a], 3);
        expect([...held].sort((x, y) => x.offset - y.offset).map((r) => r.value)).toEqual(["old-1", "new-2", "new-7"]);
      });

      it("fencing: a send whose claim was overtaken while it asked confirm never lands, even when confirm answers yes", async () => {
        const [a] = subject.topics;
        const fenced = subject.fenced!;
        const transactionalId = `msgx-contract-${a}`;
        let answer!: (yes: boolean) => void;
        const answered = new Promise<boolean>((resolve) => (answer = resolve));
        let ask!: () => void;
        const asked = new Promise<void>((resolve) => (ask = resolve));
        const old = fenced({
          transactionalId,
          confirm: () => {
            ask();
            return answered;
          },
        });
        const newer = fenced({ transactionalId, confirm: async () => true });
        const late = old.send([record(a, "F2", "old-1", 1)]);
        late.catch(() => undefined);
        // The old claim is made before confirm is asked: the newer claim comes after it.
        await asked;
        await newer.send([record(a, "F2", "new-2", 2)]);
        answer(true);
        await expect(late).rejects.toSatisfy(refused("DEPENDENCY_UNAVAILABLE"));
        await newer.send([record(a, "F2", "new-3", 3)]);
        const held = await subject.readBack([a], 2);
        expect([...held].sort((x, y) => x.offset - y.offset).map((r) => r.value)).toEqual(["new-2", "new-3"]);
      });
    }
  });
}
