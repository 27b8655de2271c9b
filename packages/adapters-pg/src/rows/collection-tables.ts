import type { CollectionName } from "@msgx/core";
import type { FlightCollectionTableName } from "./tables.js";

/**
 * The table of each resource collection. Typed against core's `CollectionName`, so a collection
 * added to the schema table fails to compile here until a migration adds its table (and
 * `MsgxDatabase` its name).
 */
export const COLLECTION_TABLES = {
  ROUT: "flight_rout",
  ERUT: "flight_erut",
  PSDT: "flight_psdt",
  GTDT: "flight_gtdt",
  CKDT: "flight_ckdt",
  CLDT: "flight_cldt",
  CHDT: "flight_chdt",
  DELY: "flight_dely",
  CHOT: "flight_chot",
  ABTM: "flight_abtm",
  SRVT: "flight_srvt",
  VIPF: "flight_vipf",
  VIPT: "flight_vipt",
} as const satisfies Readonly<Record<CollectionName, FlightCollectionTableName>>;

// And the other way: a table name in `MsgxDatabase` that no collection uses fails to compile.
const everyTableUsed: [Exclude<FlightCollectionTableName, (typeof COLLECTION_TABLES)[CollectionName]>] extends [never] ? true : never = true;
void everyTableUsed;

export const COLLECTION_ENTRIES = Object.entries(COLLECTION_TABLES) as [CollectionName, string][];
