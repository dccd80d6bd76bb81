import { ToolCallLimits } from '../../src/runtime/tool-call-limits';

/**
 * The bounds on a message's tool calls (RUN_TOOL_CONCURRENCY per run, NODE_TOOL_CONCURRENCY
 * per node): tasks are promises the test resolves by hand, so what runs at once is observed,
 * never timed.
 */
class Gate {
  readonly started: number[] = [];
  private readonly open = new Map<number, { resolve: (v: string) => void; reject: (e: unknown) => void }>();
  active = 0;
  peak = 0;

  task = (item: number): Promise<string> => {
    this.started.push(item);
    this.active += 1;
    this.peak = Math.max(this.peak, this.active);
    return new Promise<string>((resolve, reject) => this.open.set(item, { resolve, reject })).finally(() => {
      this.active -= 1;
    });
  };

  /** Tasks started and not yet finished. */
  running(): number[] {
    return [...this.open.keys()];
  }

  finish(item: number, error?: unknown): void {
    const waiter = this.open.get(item)!;
    this.open.delete(item);
    if (error === undefined) waiter.resolve(`done ${item}`);
    else waiter.reject(error);
  }
}

const ticks = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

test('a batch runs at most perRun tasks at once and answers in the items’ order once all settled', async () => {
  const gate = new Gate();
  const limits = new ToolCallLimits(2, 32);
  let answered = false;
  const batch = limits
    .all([0, 1, 2, 3], gate.task, () => false)
    .then((r) => {
      answered = true;
      return r;
    });
  await ticks();
  expect(gate.started).toEqual([0, 1]);
  gate.finish(1);
  await ticks();
  expect(gate.started).toEqual([0, 1, 2]);
  gate.finish(2);
  gate.finish(0, new Error('boom'));
  await ticks();
  expect(gate.started).toEqual([0, 1, 2, 3]);
  expect(answered).toBe(false); // 3 still runs: the batch never answers before every task settled
  gate.finish(3);
  const results = await batch;
  expect(gate.peak).toBe(2);
  expect(results.map((r) => (r.ok ? r.value : 'skipped' in r ? 'skipped' : String((r.error as Error).message)))).toEqual([
    'boom',
    'done 1',
    'done 2',
    'done 3',
  ]);
});

test('the node bound holds across batches of different runs', async () => {
  const gate = new Gate();
  const limits = new ToolCallLimits(4, 3);
  const a = limits.all([10, 11, 12], gate.task, () => false);
  const b = limits.all([20, 21, 22], gate.task, () => false);
  await ticks();
  expect(gate.running()).toEqual([10, 11, 12]);
  // Each call that ends frees one node slot, taken by the other run's next call.
  while (gate.running().length > 0) {
    gate.finish(gate.running()[0]);
    await ticks();
    expect(gate.active).toBeLessThanOrEqual(3);
  }
  await Promise.all([a, b]);
  expect(gate.peak).toBe(3);
  expect(gate.started.sort()).toEqual([10, 11, 12, 20, 21, 22]);
});

test('a halting failure skips the tasks not yet started; those already running still settle', async () => {
  const gate = new Gate();
  const limits = new ToolCallLimits(2, 32);
  const batch = limits.all([0, 1, 2, 3], gate.task, (error) => (error as Error).message === 'stop');
  await ticks();
  gate.finish(0, new Error('stop'));
  await ticks();
  expect(gate.started).toEqual([0, 1]); // 2 and 3 never start
  gate.finish(1);
  const results = await batch;
  expect(results.map((r) => (r.ok ? 'ok' : 'skipped' in r ? 'skipped' : 'error'))).toEqual(['error', 'ok', 'skipped', 'skipped']);
});
