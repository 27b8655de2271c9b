/**
 * One page of a keyset-paged listing: its items under the listing's own name `K` (part of the
 * JSON an HTTP route answers, so `versions`, `tasks`, `flights` …), oldest or newest first as the
 * listing says, and `next`, the cursor to ask for the page after it: the key of this page's last
 * item, or null on the last page. A caller pages by passing `next` back until it is null.
 *
 * ```ts
 * export type TaskPage = CursorPage<"tasks", TaskRecord, string>;
 * ```
 */
export type CursorPage<K extends string, T, C> = { readonly [k in K]: readonly T[] } & { readonly next: C | null };
