import type { Clock } from '../../src/support/clock';
import { useDemoApp } from '../support/demo-fixture';
import type { ScriptedModel } from '../support/scripted-model';
import { RunClient } from './run-helpers';

/**
 * Runs driven by Toolgate's runtime against the scripted model, as a suite uses them: the
 * demo app (vendor sandboxes, a worker) whose runtime talks to `model`, a RunClient, and after
 * every test the model's check that each request it got was one the Messages API takes.
 * `modelClock`: the runtime's stream idle timeout and retry backoff run on it (a ManualClock).
 */
export function useScriptedRuns(model: ScriptedModel, env: Record<string, string> = {}, options: { modelClock?: Clock } = {}) {
  const demo = useDemoApp(
    { ANTHROPIC_MODEL: 'claude-scripted-1', ANTHROPIC_MAX_RETRIES: '0', ...env },
    { sandboxes: true, scriptedModel: model, worker: true, modelClock: options.modelClock },
  );
  let runs: RunClient | undefined;
  afterEach(() => {
    try {
      model.assertClean();
    } finally {
      model.reset();
    }
  });
  return {
    demo,
    get runs(): RunClient {
      runs ??= new RunClient(demo.app, demo.seed);
      return runs;
    },
  };
}
