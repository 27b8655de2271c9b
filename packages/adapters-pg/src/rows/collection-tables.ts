import type { CollectionName } from "@msgx/core";

/**
 * The table of each resource collection. Typed against core's `CollectionName`, so a collection
 * added to the schema table fails to compile here until a migration adds its table.
 */
export const COLLECTION_TABLES: Readonly<Record<CollectionName, string>> = {
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
};

export const COLLECTION_ENTRIES = Object.entries(COLLECTION_TABLES) as [CollectionName, string][];
