/**
 * An upstream request that is still waiting for its reply (`REQ_TRACK` in SENT or WAITING).
 * Loaded with the run so a RESP can be matched without I/O (SPEC §2.6; the coordinator that
 * creates them is its own module).
 */
export interface OpenRequest {
  readonly requestId: string;
  /** `RQFD` (schedule range) or `RQRD` (reference data). */
  readonly kind: "RQFD" | "RQRD";
  /** For RQRD: the reference type asked for. */
  readonly rtype?: string;
  /** For RQFD: the asked range, ISO local `yyyy-MM-ddTHH:mm`, inclusive. */
  readonly from?: string;
  readonly to?: string;
  /** When the outbound row was confirmed (epoch ms). */
  readonly sentAt: number;
  /**
   * The fields a reply would carry back if the upstream echoed the request (e.g. our SNDR and
   * SEQN): replies that echo are matched on them exactly (`requests/reply-match.ts`).
   */
  readonly echo?: Readonly<Record<string, string>>;
}
