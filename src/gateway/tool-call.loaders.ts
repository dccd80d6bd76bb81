import type DataLoader from 'dataloader';
import { ToolCall } from './tool-call.entity';
import { TOOL_CALL_FIELDS, type ToolCallFields } from './tool-call.types';
import { NESTED_LIST_CAP, firstOfEach, groupLoader, uniqueLoader, type OrgRows } from '../graphql/loaders';

/** A call as the loaders read it: what its GraphQL type shows, and its tool_use id (a run's messages pair calls by it). */
export type LoadedToolCall = ToolCallFields & Pick<ToolCall, 'toolUseId'>;

// Not the org, the fingerprint, the node or the sealed input a running call carries, which no
// read shows and which cost parsing for every row of every nested list.
const LOADED_TOOL_CALL_COLUMNS = [...TOOL_CALL_FIELDS, 'toolUseId'] as const;

declare module '../graphql/context' {
  interface RequestLoaders {
    toolCallsByRun: DataLoader<string, LoadedToolCall[]>;
    toolCallById: DataLoader<string, LoadedToolCall | null>;
  }
}

/** A run's tool calls (the first NESTED_LIST_CAP, in order), and a call by id. */
export const toolCallLoaders = (rows: OrgRows) => ({
  toolCallsByRun: groupLoader(
    rows.columns(ToolCall, LOADED_TOOL_CALL_COLUMNS, (columns) =>
      firstOfEach('tool_calls', 'run_id', 'uuid', 'created_at asc, id asc', NESTED_LIST_CAP, '', columns),
    ),
    (row) => row.runId,
  ),
  toolCallById: uniqueLoader(
    rows.columns(ToolCall, LOADED_TOOL_CALL_COLUMNS, (columns) => `select ${columns} from tool_calls where org_id = ? and id = any(?::uuid[])`),
    (row) => row.id,
  ),
});
