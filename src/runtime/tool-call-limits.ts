import pLimit from 'p-limit';

/** One task's end: its value, or what it threw, or never started because an earlier task halted the batch. */
export type TaskResult<R> = { ok: true; value: R } | { ok: false; error: unknown } | { ok: false; skipped: true };

/**
 * How many tool calls run at once (issue 28, item 4): the calls of one assistant message
 * run concurrently, at most `perRun` of them, and at most `perNode` across every run of
 * this node. Each call still goes through the gateway on its own. A batch answers only
 * once every task it started has settled, in the tasks' order, so no call is ever left
 * running behind a step that returned or failed.
 */
export class ToolCallLimits {
  private readonly node: pLimit.Limit;

  constructor(
    private readonly perRun: number,
    perNode: number,
  ) {
    this.node = pLimit(perNode);
  }

  /**
   * Runs `task` for each item. `halts(error)`: a failure after which tasks not yet started
   * are skipped (what a sequential loop would never have reached, e.g. the run was cancelled).
   */
  async all<T, R>(items: readonly T[], task: (item: T, index: number) => Promise<R>, halts: (error: unknown) => boolean): Promise<TaskResult<R>[]> {
    const run = pLimit(this.perRun);
    let halted = false;
    const one = async (item: T, index: number): Promise<TaskResult<R>> => {
      if (halted) return { ok: false, skipped: true };
      try {
        return { ok: true, value: await task(item, index) };
      } catch (error) {
        if (halts(error)) halted = true;
        return { ok: false, error };
      }
    };
    return Promise.all(items.map((item, index) => run(() => this.node(() => one(item, index)))));
  }
}
