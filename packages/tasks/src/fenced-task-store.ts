import type { TaskStore } from "./task-store.js";

/**
 * `store` as a leader writes to it: every transaction fenced by `fence`, the leadership epoch it
 * leads with, so a deposed leader's commit is refused (`FENCED`) instead of undoing what the new
 * leader recorded. `store` itself when `fence` is undefined (no leadership in use).
 */
export function fencedTaskStore(store: TaskStore, fence: number | undefined): TaskStore {
  if (fence === undefined) return store;
  return {
    transaction: (fn, options) => store.transaction(fn, { ...options, fence }),
    get: (taskId) => store.get(taskId),
    getByTaskNo: (taskNo) => store.getByTaskNo(taskNo),
    list: (filter) => store.list(filter),
    feedback: (taskId) => store.feedback(taskId),
    callbacks: (taskId) => store.callbacks(taskId),
    history: (taskId) => store.history(taskId),
    historyPage: (taskId, query) => store.historyPage(taskId, query),
    dueForDispatch: (now, limit) => store.dueForDispatch(now, limit),
    stalePendingCallbacks: (updatedBefore, alertedBefore, limit) => store.stalePendingCallbacks(updatedBefore, alertedBefore, limit),
    overdueCandidates: (now, limit) => store.overdueCandidates(now, limit),
    purgeFinished: (before, limit) => store.purgeFinished(before, limit),
    replay: (replayId) => store.replay(replayId),
    countByStatus: () => store.countByStatus(),
    countOverdue: () => store.countOverdue(),
  };
}
