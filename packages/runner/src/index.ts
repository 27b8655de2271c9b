/**
 * `@msgx/runner`: msgx as a library and the `msgx` CLI over it. `createExchange(config)` composes
 * the adapters the configuration picks, the pipeline router and its loops, and the HTTP server
 * (docs/exchange.md); `loadConfig` builds the configuration from defaults, environment and overrides.
 */
export { createExchange, type Exchange, type ExchangeOptions } from "./app/create-exchange.js";
export type { Receive } from "./app/router-ingress.js";
export { loadConfig, settingPaths, type ConfigSources } from "./config/load-config.js";
export { ConfigSchema, type MsgxConfig, type MsgxConfigInput } from "./config/config-schema.js";
export type { AppParts } from "./app/app-parts.js";
export type { HealthCheck } from "./app/health-check.js";
export { startServiceHttp, type ServiceHttp } from "./app/service-http.js";
export type { StartProgress } from "./app/build-parts.js";
export type { Readiness } from "./app/readiness.js";
