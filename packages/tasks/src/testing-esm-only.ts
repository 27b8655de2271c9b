/**
 * What `require("@msgx/tasks/testing")` loads (the build puts it at dist/testing.cjs). The contract
 * suites run on vitest, which cannot be loaded with require(), so the caller gets an error that
 * says what to do instead of vitest's own.
 */
throw new Error(
  '@msgx/tasks/testing is ESM-only because vitest is; use `await import("@msgx/tasks/testing")`, or `@msgx/tasks/fakes` for the in-memory fakes from CommonJS',
);

export {};
