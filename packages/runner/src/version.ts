/** The runner's version, as `msgx --version` and the OpenAPI document say it (package.json's `version`). */
export const RUNNER_VERSION = "0.1.0";
