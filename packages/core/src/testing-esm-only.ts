/**
 * What `require("@msgx/core/testing")` loads (the build puts it at dist/testing.cjs). The contract
 * suites run on vitest, which cannot be loaded with require(), so instead of vitest's own error
 * deep inside the bundle the caller gets one that says what to do.
 */
throw new Error(
  '@msgx/core/testing is ESM-only because vitest is; use `await import("@msgx/core/testing")`, or `@msgx/core/fakes` for the in-memory fakes from CommonJS',
);

export {};
