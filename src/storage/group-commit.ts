/**
 * What the group commits of both backends (sqlite/write-queue.ts, postgres/group-commit.ts) share: each
 * write of a batch is answered only once the batch's transaction ended, by how that write went.
 */

/** How one write of a batch went: its result, or the error it alone threw (rolled back alone). */
export type Settled = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A write waiting for its batch: the promise its caller holds. */
export interface WaitingWrite {
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
}

/** Answers each write of a batch that committed: `results` are in the batch's order. */
export function settle(batch: readonly WaitingWrite[], results: readonly Settled[]): void {
  for (let index = 0; index < batch.length; index++) {
    const write = batch[index] as WaitingWrite;
    const result = results[index] as Settled;
    if (result.ok) write.resolve(result.value as never);
    else write.reject(result.error);
  }
}
