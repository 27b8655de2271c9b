/**
 * The whole exchange under deterministic simulation (issue 35, docs/simulation.md), half 2 of CI's
 * seeds; half 1 runs beside it in another worker.
 */
import { describeSeedHalf } from "./seed-half-suite.js";

describeSeedHalf(2);
