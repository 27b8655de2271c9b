import { MsgxError } from "../errors/msgx-error.js";

/**
 * `PipelineStore.commitRun` refused a run decided from memory and wrote nothing: the state
 * generation moved on (`boundKeys` empty: drop the memory, load again), or keys the run binds as
 * new are bound already (load their owners, decide again). Not an outage: the pump handles it.
 */
export class StaleRunError extends MsgxError {
  readonly generation: number | undefined;
  readonly boundKeys: readonly string[];

  constructor(message: string, detail: { readonly generation?: number; readonly boundKeys?: readonly string[] }) {
    super("CONFLICT", message, { retriable: false });
    this.generation = detail.generation;
    this.boundKeys = detail.boundKeys ?? [];
  }
}
