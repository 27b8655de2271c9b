import type { Clock } from "@msgx/core";
import type { Kysely } from "kysely";
import type { MsgxDatabase } from "./rows/tables.js";
import { PgMaintenanceStore } from "./jobs/pg-maintenance-store.js";
import { createPgMailboxTable } from "./mailbox/pg-mailbox-schema.js";
import { PgMailbox, type PgMailboxOptions } from "./mailbox/pg-mailbox.js";
import { PgFlightReader } from "./pg-flight-reader.js";
import { PgLineageReader } from "./pg-lineage-reader.js";
import { bumpLeadershipEpoch, type PgLeadership } from "./pg-leadership.js";
import { PgLeaseStore } from "./pg-lease-store.js";
import { PgOutboxStore } from "./pg-outbox-store.js";
import { PgPipelineStore } from "./pg-pipeline-store.js";
import { PgOutboundMailbox } from "./requests/pg-outbound-mailbox.js";
import { createPgOutboundTable } from "./requests/pg-outbound-schema.js";
import { PgReferenceReader } from "./requests/pg-reference-reader.js";
import { PgRequestStore } from "./requests/pg-request-store.js";
import { PgRunnerPresence } from "./status/pg-runner-presence.js";
import { PgStatusReader } from "./status/pg-status-reader.js";
import { PgThroughputReader } from "./status/pg-throughput-reader.js";

/** Options of a leadership elector made by `PgStores.leadership`. */
export interface PgLeadershipRequest {
  /** Written to `leadership.holder`. Default `<hostname>:<pid>`. */
  readonly holder?: string;
  /** The lease's ttl; the leader renews every third of it. Default 10 s. */
  readonly ttlMs?: number;
}

/**
 * Every port a runner needs, on one database (PostgreSQL or PGlite), one clock and one advisory
 * lock namespace: what `createPgStores` and `createPgliteStores` return. The stores share the
 * connection pool; `close` releases it.
 */
export interface PgStores {
  /** The pipeline store (`PROC_STATE`, identities, flights, outbox writes) under the pipeline lock and fence. */
  readonly store: PgPipelineStore;
  /** The outbox the delivery loops read and mark (`MSG_EVENT`). */
  readonly outbox: PgOutboxStore;
  /** Read side of the flight state (admin API, tools). */
  readonly flights: PgFlightReader;
  /** Lineage of flights and reference entries: versions, source messages, events and placements (issue 23). */
  readonly lineage: PgLineageReader;
  /** Counts and head of the pipeline for `status` and the metrics. */
  readonly status: PgStatusReader;
  /** Per-minute counts of finished records and sent events (the console's history). */
  readonly throughput: PgThroughputReader;
  /** The runners of this database, leader and standbys, by their heartbeats. */
  readonly presence: PgRunnerPresence;
  /** Upstream requests (`REQ_TRACK`, the SEQN counter). */
  readonly requests: PgRequestStore;
  /** Reference data received from the upstream (`REF_MASTER`). */
  readonly references: PgReferenceReader;
  /** The maintenance jobs' store; it takes exactly the pipeline store's lock keys, so a job batch and a pipeline run exclude each other. */
  readonly maintenance: PgMaintenanceStore;
  /** Creates the embedded `cminmsgs` table if it does not exist and returns a mailbox on it (no shared MySQL mailbox). */
  embeddedMailbox(options?: PgMailboxOptions): Promise<PgMailbox>;
  /** Creates the embedded `coutmsgs` table if it does not exist and returns the outbound mailbox on it. */
  embeddedOutbound(): Promise<PgOutboundMailbox>;
  /**
   * A leadership elector on the pipeline lease, same database, same lock namespace, over a
   * one-connection pool of its own (renewals never wait for the pipeline's connections).
   * PostgreSQL only: `createPgliteStores` leaves it out (one process opens a PGlite directory; it
   * leads by construction and calls `bumpEpoch`).
   */
  readonly leadership?: (options?: PgLeadershipRequest) => PgLeadership;
  /** The pipeline lease on the `leadership` row, timed by the database clock (issue 24). */
  readonly lease: PgLeaseStore;
  /** Bumps the leadership epoch as a new leader would; returns the new epoch (PGlite's leader, tests, tools). */
  bumpEpoch(): Promise<number>;
  /** Closes the pool (or the PGlite instance). */
  close(): Promise<void>;
  /** The kysely handle, for tools and tests; an application uses the ports. */
  readonly db: Kysely<MsgxDatabase>;
}

/** What both factories pass to `pgStoresOn`. */
export interface PgStoresBase {
  readonly clock: Clock;
  /** Absent on PGlite, whose stores use the default namespace. */
  readonly lockNamespace?: string;
}

/** Builds every port on `db` with one clock and one lock namespace (the factories' shared part). */
export function pgStoresOn(db: Kysely<MsgxDatabase>, base: PgStoresBase): Omit<PgStores, "leadership" | "close"> {
  const { clock } = base;
  const namespace = base.lockNamespace === undefined ? {} : { lockNamespace: base.lockNamespace };
  const store = new PgPipelineStore(db, { clock, ...namespace });
  return {
    store,
    outbox: new PgOutboxStore(db),
    flights: new PgFlightReader(db),
    lineage: new PgLineageReader(db),
    status: new PgStatusReader(db),
    throughput: new PgThroughputReader(db),
    presence: new PgRunnerPresence(db),
    requests: new PgRequestStore(db),
    references: new PgReferenceReader(db),
    maintenance: new PgMaintenanceStore(db, { clock, lockKeys: store.lockKeys }),
    embeddedMailbox: async (options = {}) => {
      await createPgMailboxTable(db, options.table);
      return new PgMailbox(db, options);
    },
    embeddedOutbound: async () => {
      await createPgOutboundTable(db);
      return new PgOutboundMailbox(db);
    },
    lease: new PgLeaseStore(db, namespace),
    bumpEpoch: () => bumpLeadershipEpoch(db, { clock, ...namespace }),
    db,
  };
}
