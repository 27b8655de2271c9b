import { describe, expect, it } from "vitest";
import { MysqlMailbox, type MysqlConnectionLike, type MysqlPoolLike, type MysqlQueryOptions } from "@msgx/adapters-mysql";
import { AppendedTexts } from "../src/appended-texts.js";

/**
 * A scripted server with an auto-increment counter: INSERTs take consecutive ids, `SELECT ...
 * <text column> AS text` reads them back, and `@@innodb_autoinc_lock_mode` answers `lockMode`.
 */
function scriptedServer(lockMode: number | Error) {
  const rows = new Map<number, string>();
  const statements: string[] = [];
  let nextId = 1;
  const answer = (o: MysqlQueryOptions): unknown => {
    const sql = o.sql;
    if (sql.startsWith("SET")) return {};
    statements.push(sql);
    if (sql.includes("innodb_autoinc_lock_mode")) {
      if (lockMode instanceof Error) throw lockMode;
      return [{ mode: lockMode, increment: 1 }];
    }
    if (sql.startsWith("INSERT")) {
      const texts = (o.values ?? []).filter((_, i) => i % 2 === 0) as string[];
      const first = nextId;
      for (const t of texts) rows.set(nextId++, t);
      return { affectedRows: texts.length, insertId: first };
    }
    if (sql.includes(" AS text FROM ")) {
      const ids = (o.values?.[0] as number[]) ?? [];
      return ids.filter((id) => rows.has(id)).map((id) => ({ id, text: rows.get(id) }));
    }
    throw new Error(`unscripted: ${sql}`);
  };
  const pool: MysqlPoolLike = {
    async getConnection(): Promise<MysqlConnectionLike> {
      // The INSERT's answer comes on a later turn, as a server's would: appends meanwhile queue up.
      const reply = async (o: MysqlQueryOptions) => {
        await new Promise((r) => setImmediate(r));
        return [answer(o), undefined] as const;
      };
      return { connection: {}, query: reply, execute: reply, release: () => undefined, destroy: () => undefined };
    },
  };
  return { pool, rows, statements, inserts: () => statements.filter((s) => s.startsWith("INSERT")) };
}

describe("MysqlMailbox appends (scripted server)", () => {
  it("groups concurrent appends into one INSERT when the server numbers its rows consecutively; each id holds its text", async () => {
    const server = scriptedServer(1);
    const m = new MysqlMailbox(server.pool);
    const texts = Array.from({ length: 12 }, (_, i) => `<MSG n="${i}"/>`);
    const ids = await Promise.all(texts.map((t) => m.append(t)));
    expect(new Set(ids).size).toBe(12);
    expect(ids.map((id) => server.rows.get(id))).toEqual(texts);
    // Two INSERTs on their way at once (the first two appends), then the other ten together.
    expect(server.inserts().length).toBeLessThan(12);
    expect(server.inserts().at(-1)!.match(/\(\?, CONVERT_TZ/g)).toHaveLength(10);
  });

  it("appends one row per INSERT under innodb_autoinc_lock_mode 2, when the mode cannot be read, and with appendGrouping null", async () => {
    for (const [mode, options] of [
      [2, {}],
      [Object.assign(new Error("Unknown system variable"), { errno: 1193, sqlState: "HY000", code: "ER_UNKNOWN_SYSTEM_VARIABLE" }), {}],
      [1, { appendGrouping: null }],
    ] as const) {
      const server = scriptedServer(mode);
      const m = new MysqlMailbox(server.pool, options);
      const ids = await Promise.all(["<a/>", "<b/>", "<c/>", "<d/>"].map((t) => m.append(t)));
      expect(ids.map((id) => server.rows.get(id))).toEqual(["<a/>", "<b/>", "<c/>", "<d/>"]);
      expect(server.inserts()).toHaveLength(4);
      expect(server.inserts().every((s) => s.match(/\(\?, CONVERT_TZ/g)?.length === 1)).toBe(true);
    }
  });

  it("gives the text of a row it appended from memory, once; then, and with appendedTextChars 0, reads it from the table", async () => {
    const server = scriptedServer(1);
    const m = new MysqlMailbox(server.pool);
    const id = await m.append("<MSG>appended</MSG>");
    const reads = () => server.statements.filter((s) => s.includes(" AS text FROM ")).length;
    expect(await m.readRaw([id])).toEqual(new Map([[id, { found: true, text: "<MSG>appended</MSG>" }]]));
    expect(reads()).toBe(0);
    expect(await m.readRaw([id, 999])).toEqual(
      new Map([
        [id, { found: true, text: "<MSG>appended</MSG>" }],
        [999, { found: false }],
      ]),
    );
    expect(reads()).toBe(1);

    const off = new MysqlMailbox(server.pool, { appendedTextChars: 0 });
    const other = await off.append("<MSG>other</MSG>");
    expect((await off.readRaw([other])).get(other)).toEqual({ found: true, text: "<MSG>other</MSG>" });
    expect(reads()).toBe(2);
  });

  it("gives the text of a row another writer appended (appendedElsewhere) from memory, once, as its own appends", async () => {
    const server = scriptedServer(1);
    const writer = new MysqlMailbox(server.pool, { appendedTextChars: 0 });
    const id = await writer.append("<MSG>from the ingress thread</MSG>");
    const m = new MysqlMailbox(server.pool);
    const reads = () => server.statements.filter((s) => s.includes(" AS text FROM ")).length;
    m.appendedElsewhere([{ msgId: id, text: "<MSG>from the ingress thread</MSG>", committedAt: Date.now() }]);
    expect(await m.readRaw([id])).toEqual(new Map([[id, { found: true, text: "<MSG>from the ingress thread</MSG>" }]]));
    expect(reads()).toBe(0);
    expect((await m.readRaw([id])).get(id)).toEqual({ found: true, text: "<MSG>from the ingress thread</MSG>" });
    expect(reads()).toBe(1);
    // appendedTextChars 0 holds nothing, whoever appended.
    const off = new MysqlMailbox(server.pool, { appendedTextChars: 0 });
    off.appendedElsewhere([{ msgId: id, text: "x", committedAt: Date.now() }]);
    expect((await off.readRaw([id])).get(id)).toEqual({ found: true, text: "<MSG>from the ingress thread</MSG>" });
  });
});

describe("AppendedTexts", () => {
  it("hands a text out once and forgets the oldest past maxChars; never holds a text longer than maxChars", () => {
    const texts = new AppendedTexts(10);
    texts.remember(1, "aaaa");
    texts.remember(2, "bbbb");
    texts.remember(3, "cccc"); // 12 > 10: the oldest (1) goes
    expect(texts.take(1)).toBeUndefined();
    expect(texts.take(2)).toBe("bbbb");
    expect(texts.take(2)).toBeUndefined();
    texts.remember(4, "x".repeat(11));
    expect(texts.take(4)).toBeUndefined();
    texts.remember(5, "y".repeat(6)); // 4 + 6 = 10: both kept
    expect([texts.take(3), texts.take(5), texts.size]).toEqual(["cccc", "yyyyyy", 0]);
    const none = new AppendedTexts(0);
    none.remember(1, "");
    none.remember(2, "a");
    expect([none.take(1), none.take(2)]).toEqual([undefined, undefined]);
  });
});
