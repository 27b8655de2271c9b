import { MsgxError } from "@msgx/core";
import { describe, expect, it } from "vitest";
import { errorAnswer } from "../src/http/http-error.js";

describe("errorAnswer", () => {
  it("answers an outage and a lost leadership (FENCED, nothing written) 503, so the caller retries; a defect 500", () => {
    expect(errorAnswer(new MsgxError("DEPENDENCY_UNAVAILABLE", "pg down")).status).toBe(503);
    expect(errorAnswer(new MsgxError("FENCED", "epoch 2 is current")).status).toBe(503);
    expect(errorAnswer(new Error("a bug")).status).toBe(500);
  });
});
