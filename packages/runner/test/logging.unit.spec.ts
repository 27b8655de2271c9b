import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../src/logging.js";

/** The JSON lines a logger wrote. */
async function linesOf(write: (logger: ReturnType<typeof createLogger>) => void): Promise<Record<string, unknown>[]> {
  const stream = new PassThrough();
  let out = "";
  stream.on("data", (d: Buffer) => (out += d.toString()));
  const logger = createLogger("debug", stream);
  write(logger);
  logger.pino.flush();
  await new Promise((r) => setImmediate(r));
  return out.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe("the runner's logger", () => {
  it("hides secrets, not paths: a route's url stays, a URL's password and any token do not", async () => {
    const [line] = await linesOf((l) =>
      l.warn("cannot reach postgres://msgx:hunter2@db:5432/msgx", {
        method: "GET",
        url: "/admin/flights/CA1234?limit=5",
        dsn: "mysql://root:s3cret@mailbox:3306/aodbinterface",
        token: "0123456789abcdef-token",
        nested: { headers: { authorization: "Bearer abc" }, urls: ["kafka://u:p@k:9092/x"] },
      }),
    );
    expect(line).toMatchObject({
      msg: "cannot reach postgres://msgx:[redacted]@db:5432/msgx",
      url: "/admin/flights/CA1234?limit=5",
      dsn: "mysql://root:[redacted]@mailbox:3306/aodbinterface",
      token: "[redacted]",
      nested: { headers: { authorization: "[redacted]" }, urls: ["kafka://u:[redacted]@k:9092/x"] },
    });
    expect(JSON.stringify(line)).not.toMatch(/hunter2|s3cret|0123456789abcdef|Bearer abc/);
  });

  it("writes one JSON object per line and nothing else", async () => {
    const lines = await linesOf((l) => {
      l.info("a");
      l.error("message dead", { msgId: 7, errorClass: "MALFORMED" });
    });
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [30, "a"],
      [50, "message dead"],
    ]);
  });
});
