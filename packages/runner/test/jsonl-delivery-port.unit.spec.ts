import { appendFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeDeliveryPortContract } from "@msgx/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { JsonlDeliveryPort, readJsonlTopic } from "../src/embedded/jsonl-delivery-port.js";

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "msgx-jsonl-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describeDeliveryPortContract("JsonlDeliveryPort", async () => {
  const dir = dataDir();
  const port = new JsonlDeliveryPort(dir);
  return {
    port,
    topics: ["msgx-msg", "msgx-ref"],
    readBack: async (topics) => topics.flatMap((t) => readJsonlTopic(dir, t).map((r) => ({ ...r, partition: 0 }))),
    close: () => port.close(),
  };
});

describe("JsonlDeliveryPort placements", () => {
  const rec = (topic: string, key: string) => ({ topic, key, value: JSON.stringify({ key }), headers: {} });

  it("numbers a topic's records by their place among its file's records, across restarts; a torn line takes no number", async () => {
    const dir = dataDir();
    const first = new JsonlDeliveryPort(dir);
    expect(await first.send([rec("t", "a"), rec("u", "x"), rec("t", "b")])).toEqual([
      { partition: 0, offset: 0 },
      { partition: 0, offset: 0 },
      { partition: 0, offset: 1 },
    ]);
    await first.close();
    // A crash mid-write: the torn line holds no record, so it takes no offset.
    appendFileSync(join(dir, "events", "t.jsonl"), '{"topic":"t","key":"torn"');
    const second = new JsonlDeliveryPort(dir);
    expect(await second.send([rec("t", "c")])).toEqual([{ partition: 0, offset: 2 }]);
    await second.close();
    expect(readJsonlTopic(dir, "t").map((r) => [r.key, r.offset])).toEqual([
      ["a", 0],
      ["b", 1],
      ["c", 2],
    ]);
  });
});
