import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { MsgxError, type Logger } from "@msgx/core";
import type { AppParts } from "../app/app-parts.js";
import { buildParts, usesDataDir } from "../app/build-parts.js";
import type { MsgxConfig } from "../config/config-schema.js";

/**
 * The parts an admin command (status, show, list, replay, resend …) opens straight on the data.
 * Opening an embedded data directory creates it, so a mistyped `--data-dir` would report an empty,
 * healthy exchange: a directory that does not exist is refused (CONFIG, exit 2) with nothing
 * created. Only `msgx migrate` and `msgx run` create one.
 */
export async function adminParts(config: MsgxConfig, logger: Logger): Promise<AppParts> {
  if (usesDataDir(config) && !existsSync(config.dataDir)) {
    throw new MsgxError("CONFIG", `data directory ${resolve(config.dataDir)} does not exist: give the --data-dir of a runner that has run (or --url of a running one)`);
  }
  return buildParts(config, logger, { admin: true });
}
