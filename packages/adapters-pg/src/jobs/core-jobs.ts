/**
 * The maintenance port of `@msgx/core`, imported by path (types only, erased at build) until the
 * core barrel exports it; then this file becomes a plain re-export of `@msgx/core`.
 */
export type {
  ArchiveQuery,
  ArchivedRecord,
  MaintenanceStore,
  MaintenanceTx,
  MaintenanceWriteOptions,
  ReconcileEntry,
  RetiredFlight,
} from "../../../core/src/jobs/maintenance-store.js";
