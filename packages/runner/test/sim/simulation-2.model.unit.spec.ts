/**
 * The whole exchange under deterministic simulation (issue 35, docs/simulation.md), half 2 of the
 * vitest run's sample of seeds (CI's own step runs seeds 1..10,000 before the suites); half 1 runs
 * beside it in another worker.
 */
import { describeSeedHalf } from "./seed-half-suite.js";

describeSeedHalf(2);
