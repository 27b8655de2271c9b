import { MsgxError, type LeaseStore } from "@msgx/core";

/**
 * `store` as a process sees it when the answer to its first `tryAcquire` is lost after the grant
 * committed (`COMMIT_UNKNOWN`); `answers()` counts the grants asked for.
 */
export function losesFirstGrantAnswer(store: LeaseStore): { store: LeaseStore; answers(): number } {
  let answers = 0;
  return {
    answers: () => answers,
    store: {
      tryAcquire: async (holder, ttlMs) => {
        const grant = await store.tryAcquire(holder, ttlMs);
        if (answers++ > 0) return grant;
        throw new MsgxError("COMMIT_UNKNOWN", "lease grant: the connection was lost after COMMIT was sent");
      },
      renew: (h, e, ttl) => store.renew(h, e, ttl),
      release: (h, e) => store.release(h, e),
    },
  };
}
