/**
 * The whole exchange under deterministic simulation (issue 35, docs/simulation.md), half 1 of the
 * vitest run's sample of seeds (CI's own step runs seeds 1..10,000 before the suites); half 2 runs
 * beside it in another worker.
 */
import { describeSeedHalf } from "./seed-half-suite.js";

describeSeedHalf(1);
