import { describe, expect, it } from "vitest";
import { MsgxError } from "@msgx/core";
import { GroupedAppends, type AppendGrouping } from "../src/grouped-appends.js";

/** A controllable server: each INSERT waits until the test releases it; ids count up from 1. */
function scriptedServer(refuse: (text: string) => boolean = () => false) {
  let nextId = 1;
  const statements: string[][] = [];
  const releases: (() => void)[] = [];
  const write = async (texts: readonly string[]): Promise<number[]> => {
    statements.push([...texts]);
    await new Promise<void>((r) => releases.push(r));
    if (texts.some(refuse)) throw new MsgxError("INFRA", "Incorrect string value");
    return texts.map(() => nextId++);
  };
  return {
    statements,
    many: write,
    one: async (text: string) => (await write([text]))[0]!,
    /** Lets every INSERT on its way finish. */
    release: async () => {
      while (releases.length > 0) releases.shift()!();
      await new Promise((r) => setImmediate(r));
    },
  };
}

const grouping = (o: Partial<AppendGrouping> = {}): AppendGrouping => ({ maxRows: 100, maxChars: 1_000, maxInFlight: 1, ...o });

describe("GroupedAppends", () => {
  it("writes appends that arrive while an INSERT is on its way together, ids in arrival order", async () => {
    const server = scriptedServer();
    const g = new GroupedAppends(server.many, server.one, grouping());
    const first = g.append("a");
    const rest = ["b", "c", "d"].map((t) => g.append(t));
    expect(server.statements).toEqual([["a"]]);
    await server.release();
    expect(server.statements).toEqual([["a"], ["b", "c", "d"]]);
    await server.release();
    expect(await first).toBe(1);
    expect(await Promise.all(rest)).toEqual([2, 3, 4]);
  });

  it("keeps at most maxInFlight INSERTs on their way, and splits groups at maxRows and maxChars", async () => {
    const server = scriptedServer();
    const g = new GroupedAppends(server.many, server.one, grouping({ maxInFlight: 2, maxRows: 3, maxChars: 10 }));
    const all = ["1", "2", "3", "4", "5", "6", "7", "8", "9"].map((t) => g.append(t));
    // Two on their way at once, each a group as soon as it could start.
    expect(server.statements).toEqual([["1"], ["2"]]);
    await server.release();
    expect(server.statements.slice(2)).toEqual([["3", "4", "5"], ["6", "7", "8"]]);
    await server.release();
    await server.release();
    expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);

    const big = scriptedServer();
    const b = new GroupedAppends(big.many, big.one, grouping({ maxChars: 10 }));
    const ids = ["x", "1234", "12345", "12345678901", "y", "z"].map((t) => b.append(t));
    for (let i = 0; i < 4; i++) await big.release();
    expect(await Promise.all(ids)).toEqual([1, 2, 3, 4, 5, 6]);
    // Groups fill up to maxChars; a text longer than that goes alone.
    expect(big.statements).toEqual([["x"], ["1234", "12345"], ["12345678901"], ["y", "z"]]);
  });

  it("writes a refused group again row by row, so only the offending append fails", async () => {
    const server = scriptedServer((t) => t === "bad");
    const g = new GroupedAppends(server.many, server.one, grouping());
    const first = g.append("first");
    const group = ["ok1", "bad", "ok2"].map((t) => g.append(t).then(
      (id) => ({ id }),
      (e: unknown) => ({ error: (e as Error).message }),
    ));
    for (let i = 0; i < 6; i++) await server.release();
    expect(await first).toBe(1);
    expect(await Promise.all(group)).toEqual([{ id: 2 }, { error: "Incorrect string value" }, { id: 3 }]);
    expect(server.statements).toEqual([["first"], ["ok1", "bad", "ok2"], ["ok1"], ["bad"], ["ok2"]]);
  });

  it("fails every append of a group whose outcome is unknown or that never reached the server, and writes none again", async () => {
    for (const kind of ["COMMIT_UNKNOWN", "DEPENDENCY_UNAVAILABLE"] as const) {
      const statements: string[][] = [];
      const g = new GroupedAppends(
        async (texts) => {
          statements.push([...texts]);
          throw new MsgxError(kind, "connection lost");
        },
        async () => {
          await new Promise((r) => setImmediate(r));
          return 1;
        },
        grouping(),
      );
      const first = g.append("first");
      const group = ["a", "b"].map((t) => g.append(t).catch((e: unknown) => (e as MsgxError).kind));
      expect(await first).toBe(1);
      expect(await Promise.all(group)).toEqual([kind, kind]);
      expect(statements).toEqual([["a", "b"]]);
    }
  });

  it("drops an append aborted while it waits, and refuses one aborted before it starts", async () => {
    const server = scriptedServer();
    const g = new GroupedAppends(server.many, server.one, grouping());
    const first = g.append("first");
    const controller = new AbortController();
    const aborted = g.append("gone", controller.signal).catch((e: unknown) => (e as Error).name);
    const kept = g.append("kept");
    controller.abort();
    expect(await aborted).toBe("AbortError");
    await server.release();
    await server.release();
    expect(await first).toBe(1);
    expect(await kept).toBe(2);
    expect(server.statements).toEqual([["first"], ["kept"]]);
    await expect(g.append("late", AbortSignal.abort())).rejects.toMatchObject({ name: "AbortError" });
  });
});
