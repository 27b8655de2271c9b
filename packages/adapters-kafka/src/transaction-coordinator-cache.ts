import type { Kafka } from "kafkajs";
import { onEachCluster } from "./kafkajs-clusters.js";

/**
 * How long a transactional id's coordinator, once found, is taken as known. Short enough that
 * kafkajs' own retries of a request the old coordinator refused (`NOT_COORDINATOR`, 5 → 320 ms,
 * 635 ms in all with `DEFAULT_PRODUCER_RETRY`) reach a lookup again when the coordinator moved;
 * long enough that a relay sending at a few messages per second looks it up once for many
 * transactions.
 */
export const TRANSACTION_COORDINATOR_TTL_MS = 400;

/** kafkajs' `COORDINATOR_TYPES.TRANSACTION` (`src/protocol/coordinatorTypes.js`). */
const TRANSACTION = 1;

/** The part of kafkajs' (private) `Cluster` this file changes. */
interface CoordinatorLookup {
  findGroupCoordinatorMetadata(args: { groupId: string; coordinatorType?: number }): Promise<unknown>;
}

/**
 * Makes the producers of `kafka` look up their transaction coordinator once per
 * {@link TRANSACTION_COORDINATOR_TTL_MS} instead of twice per transaction.
 *
 * kafkajs 2.2.4 sends a FindCoordinator request before every AddPartitionsToTxn and every EndTxn
 * (`eosManager.findTransactionCoordinator`): two of the five broker round trips of a transaction
 * of one send (Kafka's Java producer keeps the coordinator until it is told it moved). This wraps,
 * on each cluster this client creates (one per producer; a producer the delivery port drops takes
 * its cluster and what it knew with it), the coordinator lookup for transactional ids only:
 * where the broker for the node is found, and every request, its retries and the broker's
 * checks of the producer's epoch — the fencing — stay kafkajs' and the broker's. Group
 * coordinators (consumers) are looked up as before.
 *
 * It reaches the clusters through kafkajs' private cluster factory (`onEachCluster`), so it
 * changes this client only. Returns false, changing nothing, when the installed kafkajs has no
 * such factory; the producers then work as kafkajs does.
 */
export function cacheTransactionCoordinators(kafka: Kafka, ttlMs: number = TRANSACTION_COORDINATOR_TTL_MS): boolean {
  return onEachCluster(kafka, (cluster) => wrapCoordinatorLookup(cluster, ttlMs));
}

function wrapCoordinatorLookup(cluster: unknown, ttlMs: number): void {
  const target = cluster as CoordinatorLookup;
  const lookup = target.findGroupCoordinatorMetadata;
  if (typeof lookup !== "function") return;
  const known = new Map<string, { readonly at: number; readonly metadata: unknown }>();
  target.findGroupCoordinatorMetadata = async function (this: unknown, args) {
    if (args.coordinatorType !== TRANSACTION) return lookup.call(this, args);
    const hit = known.get(args.groupId);
    if (hit !== undefined && performance.now() - hit.at < ttlMs) return hit.metadata;
    const metadata = await lookup.call(this, args);
    known.set(args.groupId, { at: performance.now(), metadata });
    return metadata;
  };
}
