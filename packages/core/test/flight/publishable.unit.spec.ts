import { describe, expect, it } from "vitest";
import { encodedRecordBytes } from "../../src/outbox/record-size.js";
import type { WireValue } from "../../src/model/flight-record.js";
import { expectRefused, FlightHarness } from "./flight-harness.js";
import { flop, fltr, schd } from "./sis-messages.js";

/** A harness holding flight 1 with the remark `old`. */
function withFlight(): FlightHarness {
  const h = new FlightHarness();
  expect(h.send(schd("DNLD", [fltr("1", "<REMC>old</REMC>")])).record.status).toBe("SUCCEEDED");
  return h;
}

const remc = (h: FlightHarness): WireValue | undefined => h.flights.get("1")!.scalars.REMC;
const gates = (n: number): string => Array.from({ length: n }, (_, i) => `<GTDT GTNO='${i + 1}'><GATE>A${i + 1}</GATE><GTYP>CONTACT</GTYP></GTDT>`).join("");

describe("nothing accepted that cannot be published", () => {
  it("REMC holds at most 80 characters (WIRE.md): 80 Chinese characters apply, 81 are DEAD(PROTOCOL) and the flight keeps its remark", () => {
    const h = withFlight();
    expect(h.send(flop("REMC", [{ flid: "1", inner: `<REMC>${"航".repeat(80)}</REMC>` }])).record.status).toBe("SUCCEEDED");
    expect(remc(h)).toBe("航".repeat(80));
    const reason = expectRefused(h, flop("REMC", [{ flid: "1", inner: `<REMC>${"x".repeat(81)}</REMC>` }]), /FLID 1: REMC is 81 characters, over its width of 80/).reason ?? "";
    expect(reason.length).toBeLessThan(200);
    expect(remc(h)).toBe("航".repeat(80));
  });

  it("an over-width REMC refuses a whole SCHD snapshot, and a 3 MiB one ends the same way without echoing it", () => {
    const h = withFlight();
    expectRefused(h, schd("DNLD", [fltr("1", `<REMC>${"y".repeat(81)}</REMC>`), fltr("2")]), /REMC is 81 characters/);
    expect(h.flights.has("2")).toBe(false);
    const reason = expectRefused(h, flop("REMC", [{ flid: "1", inner: `<REMC>${"z".repeat(3 * 1024 * 1024)}</REMC>` }]), /REMC is 3145728 characters/).reason ?? "";
    expect(reason.length).toBeLessThan(200);
  });

  it("a message whose event would exceed the broker limit is DEAD(PROTOCOL) naming target, size and limit; the next message for the flight applies", () => {
    const h = withFlight();
    const sized = h.events.map((e) => encodedRecordBytes(e));
    h.maxRecordBytes = Math.max(...sized) + 500;
    const reason = expectRefused(h, flop("GTDT", [{ flid: "1", inner: gates(40) }]), new RegExp(`KAFKA:(msg|schd) key 1 .* (\\d+) bytes, over the broker limit of ${h.maxRecordBytes} bytes`)).reason ?? "";
    const bytes = Number(/ (\d+) bytes, over/.exec(reason)?.[1]);
    expect(bytes).toBeGreaterThan(h.maxRecordBytes);
    // The flight is as before the refused message: a later update applies on top of it.
    const { record, events } = h.send(flop("ESTT", [{ flid: "1", inner: "<ESTT>05MAR260830</ESTT>" }]));
    expect(record.status).toBe("SUCCEEDED");
    expect(events.map((e) => [e.target, e.stateVersion])).toStrictEqual([
      ["KAFKA:msg", 2],
      ["KAFKA:schd", 2],
    ]);
    expect(h.flights.get("1")).toMatchObject({ stateVersion: 2, collections: {} });
    expect(h.flights.get("1")!.collections.GTDT).toBeUndefined();
  });

  it("a limit the events fit in changes nothing; no limit checks nothing", () => {
    const h = withFlight();
    h.maxRecordBytes = 1_000_000;
    expect(h.send(flop("GTDT", [{ flid: "1", inner: gates(40) }])).record.status).toBe("SUCCEEDED");
    const unchecked = withFlight();
    expect(unchecked.send(flop("GTDT", [{ flid: "1", inner: gates(400) }])).record.status).toBe("SUCCEEDED");
  });
});
