import { MsgxError, type Logger } from "@msgx/core";
import type { MsgxConfig } from "./config-schema.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/**
 * Secure by default: a runner on real infrastructure (`pg.url`, `mysql.url` or `kafka.brokers`
 * set, or profile production) that listens beyond loopback must have `http.token`; without one it
 * refuses to start (CONFIG) unless `http.allowAnonymous` says so explicitly, which is logged as a
 * warning at every start. Embedded runs and loopback-only listeners are left open. `/rm/v1` is
 * guarded by `reliable.token`, else by `http.token`, so the same rule covers it.
 */
export function checkListener(config: MsgxConfig, logger: Logger): void {
  if (config.http.token !== undefined) return;
  const real = config.profile === "production" || Boolean(config.pg.url || config.mysql.url || config.kafka.brokers);
  if (!real || LOOPBACK.has(config.http.host)) return;
  if (!config.http.allowAnonymous) {
    throw new MsgxError(
      "CONFIG",
      `http.host ${config.http.host} serves real infrastructure without a token: set http.token (MSGX_HTTP_TOKEN, 16+ characters), ` +
        "listen on loopback only (http.host 127.0.0.1), or accept an open ingress and admin API with http.allowAnonymous=true (MSGX_HTTP_ALLOW_ANONYMOUS)",
    );
  }
  logger.warn("SECURITY: http.allowAnonymous=true — POST /cminmsgs/send, every /admin route (replay, requests, reliable resend) and /rm/v1 (unless reliable.token is set) are open to anyone who reaches this listener", {
    host: config.http.host,
    port: config.http.port,
  });
}
