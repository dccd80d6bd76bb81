import type DataLoader from 'dataloader';
import { ToolCall } from './tool-call.entity';
import { NESTED_LIST_CAP, firstOfEach, groupLoader, uniqueLoader, type OrgRows } from '../graphql/loaders';

declare module '../graphql/context' {
  interface RequestLoaders {
    toolCallsByRun: DataLoader<string, ToolCall[]>;
    toolCallById: DataLoader<string, ToolCall | null>;
  }
}

/** A run's tool calls (the first NESTED_LIST_CAP, in order), and a call by id. */
export const toolCallLoaders = (rows: OrgRows) => ({
  toolCallsByRun: groupLoader(
    rows(ToolCall, firstOfEach('tool_calls', 'run_id', 'uuid', 'created_at asc, id asc', NESTED_LIST_CAP)),
    (row) => row.runId,
  ),
  toolCallById: uniqueLoader(rows(ToolCall, 'select * from tool_calls where org_id = ? and id = any(?::uuid[])'), (row) => row.id),
});
