import type { EntityManager } from '@mikro-orm/postgresql';
import type { SqlRunner } from '../db/raw-transaction';
import { appendLedgerEvents } from '../ledger/ledger.service';
import type { AgentRun } from '../runs/agent-run.entity';
import { appendMessage, isPending, type StoredBlock } from '../runs/run-messages';

/** Tool results written in place of the pending ones, and whether the run was still running in that transaction. */
export interface FilledResults {
  content: StoredBlock[];
  running: boolean;
}

/** The user message of a turn's tool results, and its message boundary for run subscribers. */
export async function appendToolResults(tx: EntityManager, run: AgentRun, position: number, results: StoredBlock[]): Promise<void> {
  appendMessage(tx, run, position, 'user', results);
  await tx.flush();
  await appendLedgerEvents(tx, [
    {
      orgId: run.orgId,
      type: 'run.message_added',
      runId: run.id,
      resourceId: run.id,
      metadata: { position, role: 'user', toolResults: results.length },
    },
  ]);
}

/** Only a message still holding pending results is filled in: a concurrent step's work stands. */
export async function storeResults(tx: SqlRunner, messageId: string, content: StoredBlock[]): Promise<FilledResults | 'reload'> {
  const [current] = await tx.execute<{ content: StoredBlock[]; run_status: string }[]>(
    'select m.content, r.status as run_status from run_messages m join agent_runs r on r.id = m.run_id where m.id = ? for update of m',
    [messageId],
  );
  if (!current?.content.some(isPending)) return 'reload';
  await tx.execute('update run_messages set content = ?::jsonb where id = ?', [JSON.stringify(content), messageId]);
  return { content, running: current.run_status === 'running' };
}
