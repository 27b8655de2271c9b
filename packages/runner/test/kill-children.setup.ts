/** Setup file of the integration projects (vitest.config.ts): after a suite file, no child it spawned is left running. */
import { afterAll } from "vitest";
import { killAlive } from "./script-process.js";

afterAll(() => killAlive());
