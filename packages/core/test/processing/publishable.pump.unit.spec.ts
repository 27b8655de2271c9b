import { describe, expect, it } from "vitest";
import { decodeMessage } from "../../src/codec/xml-codec.js";
import { defaultProcessors, InboxPoller, Pump, silentLogger } from "@msgx/core";
import { type PumpOptions } from "@msgx/core";
import { InMemoryMailbox, InMemoryPipelineStore, ManualClock } from "@msgx/core/testing";
import { flop, fltr, schd } from "../flight/sis-messages.js";

/** The pump with the default processors over the fakes, draining everything the mailbox holds. */
function world(options: Partial<PumpOptions> = {}) {
  const clock = new ManualClock();
  const mailbox = new InMemoryMailbox(clock);
  const store = new InMemoryPipelineStore(clock);
  const deps = { mailbox, store, clock, logger: silentLogger };
  const poller = new InboxPoller(deps, { batchSize: 50, gapGraceMs: 0, rescanEveryMs: 10_000, rescanWindow: 50 });
  const pump = new Pump({ ...deps, decode: (raw) => decodeMessage(raw), processors: defaultProcessors(), horizon: () => poller.horizon }, options);
  const drain = async (): Promise<void> => {
    while ((await poller.step()).full);
    for (let i = 0; i < 20; i++) if ((await pump.step()).did === "idle") return;
  };
  return { mailbox, store, drain };
}

const gates = (n: number): string => Array.from({ length: n }, (_, i) => `<GTDT GTNO='${i + 1}'><GATE>A${i + 1}</GATE></GTDT>`).join("");

describe("Pump: nothing accepted that cannot be published", () => {
  it("a message whose event is over maxRecordBytes ends DEAD(PROTOCOL) in its run, nothing of it written; the next one for the flight applies", async () => {
    const w = world({ maxRecordBytes: 1_500 });
    w.mailbox.insert(schd("DNLD", [fltr("1")]));
    w.mailbox.insert(flop("GTDT", [{ flid: "1", inner: gates(30) }]));
    w.mailbox.insert(flop("ESTT", [{ flid: "1", inner: "<ESTT>05MAR260830</ESTT>" }]));
    await w.drain();
    expect([1, 2, 3].map((id) => [w.store.tables.records.get(id)?.status, w.store.tables.records.get(id)?.errorClass])).toStrictEqual([
      ["SUCCEEDED", null],
      ["DEAD", "PROTOCOL"],
      ["SUCCEEDED", null],
    ]);
    expect(w.store.tables.records.get(2)?.reason).toMatch(/^unpublishable: event KAFKA:msg key 1 would be \d+ bytes, over the broker limit of 1500 bytes$/);
    expect(w.store.tables.events.map((e) => [e.sourceMsgId, e.target, e.stateVersion])).toStrictEqual([
      [1, "KAFKA:msg", 1],
      [1, "KAFKA:schd", 1],
      [3, "KAFKA:msg", 2],
      [3, "KAFKA:schd", 2],
    ]);
    const flight = w.store.tables.flights.get("1");
    expect(flight).toMatchObject({ stateVersion: 2, lastMsgId: 3 });
    expect(flight?.collections.GTDT).toBeUndefined();
  });

  it("checks against 1,000,000 bytes by default; 0 checks nothing", async () => {
    const checked = world();
    const unchecked = world({ maxRecordBytes: 0 });
    for (const w of [checked, unchecked]) {
      w.mailbox.insert(schd("DNLD", [fltr("1")]));
      w.mailbox.insert(flop("GTDT", [{ flid: "1", inner: gates(30_000) }]));
      await w.drain();
    }
    expect(checked.store.tables.records.get(2)).toMatchObject({ status: "DEAD", reason: expect.stringMatching(/over the broker limit of 1000000 bytes$/) });
    expect(unchecked.store.tables.records.get(2)?.status).toBe("SUCCEEDED");
  });
});
