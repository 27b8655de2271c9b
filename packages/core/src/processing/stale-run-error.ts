import { MsgxError } from "../errors/msgx-error.js";

/**
 * `PipelineStore.commitRun` refused a run decided from memory and wrote nothing: the state
 * generation moved on (`boundKeys` empty: drop the memory, load again), keys the run binds as
 * new are bound already (load their owners, decide again), or the run is not the store's head run
 * (`notAtHead`: take the run again from the store). Not an outage: the pump handles it.
 */
export class StaleRunError extends MsgxError {
  readonly generation: number | undefined;
  readonly boundKeys: readonly string[];
  readonly notAtHead: boolean;

  constructor(message: string, detail: { readonly generation?: number; readonly boundKeys?: readonly string[]; readonly notAtHead?: boolean }) {
    super("CONFLICT", message, { retriable: false });
    this.generation = detail.generation;
    this.boundKeys = detail.boundKeys ?? [];
    this.notAtHead = detail.notAtHead ?? false;
  }
}
