import { describe, expect, it } from "vitest";
import { states, type ValueOf } from "../../src/base/states.js";

describe("states", () => {
  it("maps each name to itself, in the order given", () => {
    const Light = states("RED", "AMBER", "GREEN");
    expect(Light).toEqual({ RED: "RED", AMBER: "AMBER", GREEN: "GREEN" });
    expect(Object.keys(Light)).toEqual(["RED", "AMBER", "GREEN"]);
  });

  it("types each member as its literal, and ValueOf as their union", () => {
    const Light = states("RED", "GREEN");
    const red: "RED" = Light.RED;
    const all: ValueOf<typeof Light>[] = [red, Light.GREEN];
    // @ts-expect-error: not a state of the table
    const other: ValueOf<typeof Light> = "BLUE";
    expect([...all, other]).toEqual(["RED", "GREEN", "BLUE"]);
  });
});
