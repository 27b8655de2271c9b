import { afterEach, describe, expect, it, vi } from "vitest";
import { decideGate, gateServiceControl } from "@msgx/core/testing";

describe("decideGate: one rule for every suite that needs a service", () => {
  it("runs when nothing is wrong, required or not", () => {
    expect(decideGate("s", undefined, false)).toEqual({ verdict: "run" });
    expect(decideGate("s", undefined, true)).toEqual({ verdict: "run" });
  });

  it("a problem is NOT RUN naming the suite and the reason, unless services are required", () => {
    const d = decideGate("relay through a broker restart", "cannot stop and start kafka: not ours", false);
    expect(d.verdict).toBe("not-run");
    expect(d.verdict === "not-run" && d.line).toContain("NOT RUN: relay through a broker restart — cannot stop and start kafka: not ours");
  });

  it("a problem is a failure when services are required", () => {
    const d = decideGate("s", "cannot stop and start kafka: not ours", true);
    expect(d).toMatchObject({ verdict: "fail", error: "MSGX_REQUIRE_SERVICES=1 but cannot stop and start kafka: not ours (suite: s)" });
  });
});

describe("gateServiceControl", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });
  const notOurs = async () => {
    throw new Error("another process holds the port");
  };

  it("an owned service: available, nothing printed", async () => {
    vi.stubEnv("MSGX_REQUIRE_SERVICES", "1");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    await expect(gateServiceControl("kafka", "s", async () => undefined)).resolves.toEqual({ available: true, reason: "" });
    expect(warn).not.toHaveBeenCalled();
  });

  it("a service someone else owns: NOT RUN, printed, skipped", async () => {
    vi.stubEnv("MSGX_REQUIRE_SERVICES", "");
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const gate = await gateServiceControl("kafka", "s", notOurs);
    expect(gate).toEqual({ available: false, reason: "cannot stop and start kafka: another process holds the port" });
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("NOT RUN: s — cannot stop and start kafka: another process holds the port"));
  });

  it("a service someone else owns under MSGX_REQUIRE_SERVICES=1: a failure", async () => {
    vi.stubEnv("MSGX_REQUIRE_SERVICES", "1");
    await expect(gateServiceControl("kafka", "s", notOurs)).rejects.toThrow("MSGX_REQUIRE_SERVICES=1 but cannot stop and start kafka");
  });
});
