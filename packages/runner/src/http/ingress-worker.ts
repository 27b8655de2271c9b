/**
 * The ingress thread's entry (built as `dist/ingress-worker.js` and `.cjs`; the benchmarks bundle
 * it beside theirs): nothing imports this file, so only a thread started on it serves the ingress.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { IngressWorkerData } from "./ingress-messages.js";
import { serveIngress } from "./serve-ingress.js";

if (parentPort) void serveIngress(parentPort, workerData as IngressWorkerData);
