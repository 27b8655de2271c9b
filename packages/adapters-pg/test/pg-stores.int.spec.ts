/**
 * `createPgliteStores` / `createPgStores` hand out every port on one database, one clock and one
 * lock namespace: each store that stamps time stamps the injected clock's, and the maintenance
 * store takes exactly the pipeline store's advisory lock.
 */
import { sql } from "kysely";
import { gateService, ManualClock } from "@msgx/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgliteStores, createPgStores, lockKeys, type PgStores } from "../src/index.js";
import { PgReliableMessageStore } from "../src/reliable/index.js";
import { PG_URL, probePostgres, randomSchema } from "./pg-harness.js";

const gate = await gateService("PostgreSQL", "adapters-pg: createPgStores", probePostgres);
const T0 = Date.UTC(2026, 2, 5, 8, 0);
const draft = { target: "KAFKA:rmq.q1", partitionKey: "k", eventType: "UPSERT", stateVersion: 1, payload: { a: 1 }, sourceMsgId: 0 } as const;

/** Every time-stamping port writes the injected clock's time. */
async function stampsTheClock(stores: PgStores, clock: ManualClock): Promise<void> {
  await stores.store.enqueue([{ msgId: 1, receivedAt: T0 - 5_000 }], { horizon: 1 });
  const proc = await sql<{ at: string }>`SELECT (extract(epoch FROM updated_at) * 1000)::bigint::text AS at FROM proc_state WHERE msg_id = 1`.execute(stores.db);
  expect(Number(proc.rows[0]?.at)).toBe(T0);

  clock.advance(1_000);
  const sent = await new PgReliableMessageStore(stores.db, { clock }).commit({ op: "send", send: draft });
  expect(sent.ok).toBe(true);
  const eventId = sent.ok ? sent.eventId! : -1;
  expect((await stores.outbox.get([eventId]))[0]?.createdAt).toBe(T0 + 1_000);

  clock.advance(1_000);
  const epoch = await stores.bumpEpoch();
  const lead = await sql<{ epoch: string; at: string }>`SELECT epoch::text, (extract(epoch FROM acquired_at) * 1000)::bigint::text AS at FROM leadership WHERE name = 'pipeline'`.execute(stores.db);
  expect(lead.rows[0]).toEqual({ epoch: String(epoch), at: String(T0 + 2_000) });

  clock.advance(1_000);
  await stores.maintenance.transaction((tx) => tx.retireFlights([], [{ ...draft, target: "KAFKA:msg" }]), { fence: epoch });
  const [tombstone] = await stores.outbox.pending("KAFKA:msg", T0 + 3_000, 10);
  expect(tombstone?.createdAt).toBe(T0 + 3_000);
}

describe("createPgliteStores", () => {
  let stores: PgStores;
  const clock = new ManualClock(T0);
  beforeAll(async () => {
    stores = await createPgliteStores(undefined, { clock });
  });
  afterAll(() => stores.close());

  it("stamps the injected clock in every store", () => stampsTheClock(stores, clock));

  it("has no leadership; maintenance takes the pipeline store's lock keys (the default namespace)", () => {
    expect(stores.leadership).toBeUndefined();
    expect(stores.store.lockKeys).toEqual(lockKeys());
    expect(stores.maintenance.lockKeys).toBe(stores.store.lockKeys);
  });

  it("creates the embedded mailboxes on demand, idempotently", async () => {
    const outbound = await stores.embeddedOutbound();
    const id = await outbound.insert("<MSG/>", "VIEWRQFD");
    expect((await (await stores.embeddedOutbound()).find({ ids: [id] })).map((r) => r.rawXml)).toEqual(["<MSG/>"]);
    await stores.embeddedMailbox();
    await stores.db.insertInto("cminmsgs").values({ clob_msg: "<MSG/>" }).execute();
    const mailbox = await stores.embeddedMailbox({ onlyValidStatus: true });
    expect((await mailbox.scan(0, 10)).map((r) => r.msgId)).toEqual([1]);
  });
});

describe.skipIf(!gate.available)("createPgStores", () => {
  let stores: PgStores;
  const schema = randomSchema();
  const clock = new ManualClock(T0);
  beforeAll(async () => {
    stores = await createPgStores({ connectionString: PG_URL, schema, clock, max: 2 });
  });
  afterAll(async () => {
    await sql`DROP SCHEMA ${sql.id(schema)} CASCADE`.execute(stores.db);
    await stores.close();
  });

  it("stamps the injected clock in every store", () => stampsTheClock(stores, clock));

  it("names its locks after the schema; maintenance and leadership take the same keys as the pipeline store", async () => {
    expect(stores.store.lockKeys).toEqual(lockKeys(schema));
    expect(stores.maintenance.lockKeys).toBe(stores.store.lockKeys);
    const leader = stores.leadership!({ holder: "t" });
    const epoch = await leader.acquire();
    expect(epoch).toBeGreaterThan(0);
    await leader.release();
  });
});
