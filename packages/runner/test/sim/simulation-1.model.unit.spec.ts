/**
 * The whole exchange under deterministic simulation (issue 35, docs/simulation.md), half 1 of CI's
 * seeds; half 2 runs beside it in another worker.
 */
import { describeSeedHalf } from "./seed-half-suite.js";

describeSeedHalf(1);
