import { describe, expect, it } from "vitest";
import { describeFlightReaderContract } from "../../src/flight/flight-reader.contract.js";
import { compareFlids } from "../../src/flight/flight-reader.js";
import { InMemoryFlightReader } from "../../src/flight/in-memory-flight-reader.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

describeFlightReaderContract("in-memory", () => {
  const store = new InMemoryPipelineStore(new ManualClock());
  return {
    reader: new InMemoryFlightReader(store),
    seed: async (flights) => {
      for (const f of flights) store.tables.flights.set(f.flid, f);
    },
    close: async () => {},
  };
});

describe("compareFlids", () => {
  it("orders decimal ids by value, leading zeros after the plain form", () => {
    expect(["10", "9", "010", "1", "100"].sort(compareFlids)).toStrictEqual(["1", "9", "010", "10", "100"]);
  });
});
