import type DataLoader from 'dataloader';
import { AgentRun } from './agent-run.entity';
import { RunMessage } from './run-message.entity';
import { NESTED_LIST_CAP, firstOfEach, groupLoader, uniqueLoader, type OrgRows } from '../graphql/loaders';

declare module '../graphql/context' {
  interface RequestLoaders {
    runById: DataLoader<string, AgentRun | null>;
    messagesByRun: DataLoader<string, RunMessage[]>;
  }
}

/** A run by id, and a run's messages (the first NESTED_LIST_CAP, in order). */
export const runLoaders = (rows: OrgRows) => ({
  runById: uniqueLoader(rows(AgentRun, 'select * from agent_runs where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
  messagesByRun: groupLoader(rows(RunMessage, firstOfEach('run_messages', 'run_id', 'uuid', 'position asc', NESTED_LIST_CAP)), (row) => row.runId),
});
