/** The maintenance port of `@msgx/core`, re-exported for the files of this folder. */
export type {
  ArchiveQuery,
  ArchivedRecord,
  MaintenanceStore,
  MaintenanceTx,
  MaintenanceWriteOptions,
  ReconcileEntry,
  RetiredFlight,
  SnapshotLogRow,
} from "@msgx/core";
