import { decodeMessage } from "../../src/codec/xml-codec.js";
import { defaultProcessors } from "../../src/flight/default-processors.js";
import { REFERENCE_SCHEMAS } from "../../src/model/reference-schema.js";
import { silentLogger } from "../../src/runtime/logger.js";
import { Pump } from "../../src/processing/pump.js";
import { SimulatedCrashMarker } from "../../src/runtime/simulated-crash.js";
import { InMemoryOutboundMailbox } from "../../src/ports/in-memory-outbound-mailbox.js";
import { InMemoryReferenceReader } from "../../src/requests/in-memory-reference-reader.js";
import { InMemoryRequestStore } from "../../src/requests/in-memory-request-store.js";
import { RequestCoordinator, type RequestFailpoint } from "../../src/requests/request-coordinator.js";
import type { RequestOptions } from "../../src/requests/request-options.js";
import { epochMsToDttm } from "../../src/requests/dttm-instant.js";
import { InMemoryMailbox } from "../../src/ports/in-memory-mailbox.js";
import { InMemoryPipelineStore } from "../../src/processing/in-memory-pipeline-store.js";
import { ManualClock } from "../../src/runtime/manual-clock.js";

/** The upstream's SNDR in replies. */
const UPSTREAM = "AODB";

/** A `SCHD/RESP` with one flight per SODT (FLIDs `firstFlid` (900000) + index), stamped `dttm`. */
export function schdResp(seqn: number, dttm: string, sodts: readonly string[], options: { readonly recs?: number; readonly firstFlid?: number } = {}): string {
  const flights = sodts
    .map((sodt, i) => `<FLTR><FLID>${(options.firstFlid ?? 900_000) + i}</FLID><ALCD>CZ</ALCD><FLNO>CZ${3000 + i}</FLNO><MVIN>A</MVIN><SODT>${sodt}</SODT><FLTY>W</FLTY><FLIN>D</FLIN><ACFT>333</ACFT></FLTR>`)
    .join("");
  return meta(seqn, dttm, "SCHD", "RESP") + `<SCHD><RECS>${options.recs ?? sodts.length}</RECS>${flights}</SCHD></MSG>`;
}

/** The text field `refMsg` fills for `rtype`: the first one of its schema. */
export const refNameField = (rtype: string): string => {
  const schema = REFERENCE_SCHEMAS.get(rtype);
  const name = Object.entries(schema?.fields ?? {}).find(([, kind]) => kind === "text")?.[0];
  if (schema === undefined || name === undefined) throw new Error(`no text field for reference type ${rtype}`);
  return name;
};

/**
 * A reference message `<rtype>/<styp>` in the upstream layout (`RECS`, then records named like
 * the type): records keyed `rkey`, each with one text field ({@link refNameField}) `name of <rkey>`.
 */
export function refMsg(seqn: number, dttm: string, rtype: string, styp: string, rkeys: readonly string[], options: { readonly recs?: number } = {}): string {
  const key = REFERENCE_SCHEMAS.get(rtype)?.key ?? "CODE";
  const name = refNameField(rtype);
  const records = rkeys.map((k) => `<${rtype}><${key}>${k}</${key}><${name}>name of ${k}</${name}></${rtype}>`).join("");
  return meta(seqn, dttm, rtype, styp) + `<RECS>${options.recs ?? rkeys.length}</RECS>${records}</MSG>`;
}

const meta = (seqn: number, dttm: string, type: string, styp: string) =>
  `<MSG><META><SNDR>${UPSTREAM}</SNDR><SEQN>${seqn}</SEQN><DTTM>${dttm}</DTTM><TYPE>${type}</TYPE><STYP>${styp}</STYP></META>`;

/**
 * Everything of the request side on the fakes, sharing one clock: the pipeline (pump over the
 * in-memory store and mailbox, flight + reference processors), the request store over the same
 * tables, `COUTMSGS`, and a coordinator. `restart()` builds a new coordinator and pump (a crash).
 */
export class RequestsWorld {
  readonly clock = new ManualClock(Date.UTC(2026, 2, 5, 0, 0, 0));
  readonly mailbox = new InMemoryMailbox(this.clock);
  readonly store = new InMemoryPipelineStore(this.clock);
  readonly requests = new InMemoryRequestStore(this.store);
  readonly references = new InMemoryReferenceReader(this.store.tables.requestTables);
  readonly outbound = new InMemoryOutboundMailbox(this.clock);
  failpoint: RequestFailpoint | undefined;
  /** When set, the pump's next run dies before its commit (nothing of it is written). */
  pumpCrashNext = false;
  coordinator!: RequestCoordinator;
  pump!: Pump;
  #seqn = 480_000;

  constructor(readonly options: Partial<RequestOptions> = {}) {
    this.restart();
  }

  restart(): void {
    this.coordinator = new RequestCoordinator(
      {
        store: this.requests,
        outbound: this.outbound,
        clock: this.clock,
        logger: silentLogger,
        failpoint: (name) => {
          if (name === this.failpoint) {
            this.failpoint = undefined;
            throw new SimulatedCrashMarker(name);
          }
        },
      },
      this.options,
    );
    this.pump = new Pump({
      store: this.store,
      mailbox: this.mailbox,
      clock: this.clock,
      logger: silentLogger,
      decode: (raw) => decodeMessage(raw),
      processors: defaultProcessors(),
      horizon: () => Number.MAX_SAFE_INTEGER,
      failpoint: (name) => {
        if (name === "pump.before-commit" && this.pumpCrashNext) {
          this.pumpCrashNext = false;
          throw new SimulatedCrashMarker(name);
        }
      },
    });
  }

  /** The airport-local DTTM of now + `offsetMs` (the upstream stamping a reply). */
  dttm(offsetMs = 0): string {
    return epochMsToDttm(this.clock.now() + offsetMs, 480);
  }

  nextSeqn(): number {
    return this.#seqn++;
  }

  /** The upstream writes `raw` into CMINMSGS and we enqueue it; returns its mailbox id. */
  async arrive(raw: string): Promise<number> {
    const id = this.mailbox.insert(raw);
    await this.store.enqueue([{ msgId: id, receivedAt: this.clock.now() }], { horizon: id });
    return id;
  }

  /** Runs the pump until it has nothing ready. */
  async drain(): Promise<void> {
    for (let i = 0; i < 1000; i++) {
      const step = await this.pump.step();
      if (step.did !== "processed") return;
    }
    throw new Error("pump did not settle");
  }

  async outcome(msgId: number): Promise<string> {
    const r = await this.store.get(msgId);
    return `${r?.status}${r?.reason ? `:${r.reason}` : ""}`;
  }
}
