import { MsgxError, type Logger } from "@msgx/core";
import type { MsgxConfig } from "./config-schema.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/**
 * Secure by default, in every profile (an embedded runner's `/admin` replays and resends as well):
 * a runner that listens beyond loopback must have `http.token`; without one it refuses to start
 * (CONFIG) unless `http.allowAnonymous` says so explicitly, which is logged as a warning at every
 * start. Loopback-only listeners are left open. `/rm/v1` and `/task/v1` are guarded by their own
 * token, else by `http.token`, so the same rule covers them.
 */
export function checkListener(config: MsgxConfig, logger: Logger): void {
  if (config.http.token !== undefined || LOOPBACK.has(config.http.host)) return;
  if (!config.http.allowAnonymous) {
    throw new MsgxError(
      "CONFIG",
      `http.host ${config.http.host} is not loopback and there is no token: set http.token (MSGX_HTTP_TOKEN or --token-file, 16+ characters), ` +
        "listen on loopback only (http.host 127.0.0.1), or accept an open ingress and admin API with http.allowAnonymous=true (MSGX_HTTP_ALLOW_ANONYMOUS)",
    );
  }
  logger.warn("SECURITY: http.allowAnonymous=true — POST /cminmsgs/send, every /admin route (replay, requests, reliable resend) and /rm/v1 (unless reliable.token is set) are open to anyone who reaches this listener", {
    host: config.http.host,
    port: config.http.port,
  });
}
