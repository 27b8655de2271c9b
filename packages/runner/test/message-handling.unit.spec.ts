import { describe, expect, it } from "vitest";
import { decodeMessage, DEFAULT_CODEC_OPTIONS, DEFAULT_IDENTITY_WINDOW_MS, DEFAULT_RETRY_POLICY, knownTypes, sha256Hex, silentLogger, type StatusReader } from "@msgx/core";
import { evolveProc, newProcRecord } from "@msgx/core/testing";
import { ManualClock } from "@msgx/core/testing";
import type { AppParts } from "../src/app/app-parts.js";
import { messageHandling } from "../src/app/message-handling.js";
import { createMetrics } from "../src/app/metrics.js";
import { startPipeline } from "../src/app/pipeline-app.js";
import { ConfigSchema } from "../src/config/config-schema.js";
import { loadConfig } from "../src/config/load-config.js";

const msg = (type: string, styp: string, body = "") =>
  `<MSG><META><SNDR>AODB</SNDR><SEQN>1</SEQN><DTTM>20260305020000</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>${body}</MSG>`;
const kindOf = (raw: string, codec: Parameters<typeof decodeMessage>[1]) => {
  const r = decodeMessage(raw, codec);
  return r.ok ? r.message.body.kind : r.errorClass;
};

describe("codec options, type policy and identity from the configuration", () => {
  it("defaults to the core's codec options, the kinds table's policy, the short unsupported budget and skip", () => {
    const h = messageHandling(loadConfig({ env: {} }));
    expect(h.codec).toEqual(DEFAULT_CODEC_OPTIONS);
    expect(h.unsupported).toEqual({ mode: "fail", maxAttempts: 3, headDeadlineMs: 10_000 });
    expect(h.identity).toEqual({ includeDayBoundary: false, includeContent: false, onContentDiffers: "skip", window: DEFAULT_IDENTITY_WINDOW_MS });
    expect(h.contentHash("msgx ü")).toBe(sha256Hex("msgx ü"));
    expect(Object.keys(h.processors).sort()).toEqual(expect.arrayContaining(["adft", "fdel", "flop", "reference", "snapshot"]));
  });

  it("hands every codec setting to the decoder the pump uses", () => {
    const h = messageHandling(
      loadConfig({
        env: {
          MSGX_TYPES_POLICY: "LDM=unsupported, ZZZZ=ignore,FLOP/ESTT=ignore",
          MSGX_CODEC_REFERENCE_TYPES: "AIRL",
          MSGX_CODEC_LIMITS_MAX_ELEMENTS: "10",
          MSGX_CODEC_NUMERIC_TIME_TOLERANCE: "true",
        },
      }),
    );
    expect(kindOf(msg("LDM", "NONE"), h.codec)).toBe("unsupported");
    expect(kindOf(msg("ZZZZ", "NONE"), h.codec)).toBe("ignorable");
    expect(kindOf(msg("FLOP", "ESTT", "<FLOP><FLID>1</FLID></FLOP>"), h.codec)).toBe("ignorable");
    expect(kindOf(msg("ARPT", "DNLD", "<RECS>0</RECS>"), h.codec)).toBe("unsupported");
    expect(kindOf(msg("AIRL", "DNLD", "<RECS>0</RECS>"), h.codec)).toBe("reference");
    expect(kindOf(msg("FLOP", "ACTT", "<FLOP><FLID>1</FLID><ACTT>200001011200</ACTT><A/><B/><C/></FLOP>"), h.codec)).toBe("MALFORMED");
    // 10 elements, within the cap; the numeric time is accepted only with the tolerance on.
    expect(kindOf(msg("FLOP", "ACTT", "<FLOP><FLID>1</FLID><ACTT>200001011200</ACTT></FLOP>"), h.codec)).toBe("flop");
    expect(kindOf(msg("FLOP", "ACTT", "<FLOP><FLID>1</FLID><ACTT>200001011200</ACTT></FLOP>"), messageHandling(loadConfig({ env: {} })).codec)).toBe("PROTOCOL");
  });

  it("refuses to start when the policy processes a TYPE with no decoder or processor (a CONFIG error naming it)", async () => {
    for (const [policy, why] of [
      ["SCHS=process", "SCHS=process: no processor is registered for kind seasonal"],
      ["LDM=process", "LDM=process: msgx has no decoder or processor for this type"],
      ["FLOP/ZZZZ=process", "FLOP/ZZZZ=process: ZZZZ is not FDEL or a subtype of the FLOP update matrix"],
    ] as const) {
      expect(() => loadConfig({ env: { MSGX_TYPES_POLICY: policy } }), policy).toThrow(expect.objectContaining({ kind: "CONFIG", message: expect.stringContaining(why) }));
    }
    // A configuration built without loadConfig is refused by startPipeline itself, before any part is touched.
    const config = ConfigSchema.parse({ types: { policy: { SCHS: "process" } } });
    await expect(startPipeline({} as AppParts, config, silentLogger)).rejects.toMatchObject({ kind: "CONFIG", message: expect.stringContaining("kind seasonal") });
  });
});

describe("metrics of the type policy", () => {
  const unreachable: StatusReader = { status: async () => Promise.reject(new Error("no database")) };
  const record = (id: number, type: string) => ({ ...newProcRecord(id, 0, 0), meta: { sndr: "AODB", seqn: id, dttm: "20260305020000", type, styp: "NONE" } });

  it("counts ignored and unsupported outcomes by TYPE, unknown TYPEs as other", async () => {
    const metrics = createMetrics(unreachable, new ManualClock(), undefined, knownTypes({ QQQ: "unsupported" }, ["AIRL"]));
    const skipped = (id: number, type: string, reason: string) => evolveProc(record(id, type), { type: "skipped", reason }, { now: 1 }, DEFAULT_RETRY_POLICY);
    const failed = (id: number, type: string) => evolveProc(record(id, type), { type: "failed", errorClass: "UNSUPPORTED", reason: `unsupported:${type}/NONE` }, { now: 1 }, DEFAULT_RETRY_POLICY);
    const exhausted = evolveProc(failed(5, "QQQ"), { type: "exhausted", reason: "held" }, { now: 2 }, DEFAULT_RETRY_POLICY);
    metrics.recordTypeOutcomes([
      skipped(1, "LDM", "ignored:LDM"),
      skipped(2, "SCHS", "ignored:SCHS"),
      failed(3, "QQQ"),
      failed(4, "XQZW"),
      exhausted,
      skipped(6, "ABCD", "unsupported:ABCD/NONE"),
      skipped(7, "FLOP", "duplicate-of:1"),
    ]);
    const body = (await metrics.render()).body;
    expect(body).toContain('msgx_messages_ignored_total{type="LDM"} 1');
    expect(body).toContain('msgx_messages_ignored_total{type="SCHS"} 1');
    expect(body).toContain('msgx_messages_unsupported_total{type="QQQ",outcome="failed"} 1');
    expect(body).toContain('msgx_messages_unsupported_total{type="other",outcome="failed"} 1');
    expect(body).toContain('msgx_messages_unsupported_total{type="QQQ",outcome="exhausted"} 1');
    expect(body).toContain('msgx_messages_unsupported_total{type="other",outcome="skipped"} 1');
    expect(body).not.toContain("XQZW");
    expect(body).not.toContain('type="FLOP"');
  });
});
