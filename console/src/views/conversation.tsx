import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ConsoleConversationDocument, type ConsoleConversationQuery, type ConsoleMessageFragment } from '../../../gql/graphql';
import type { Session } from '../main';
import { Badge, ErrorNote, Json } from '../ui';

type Block = ConsoleMessageFragment['blocks'][number];

/** A call of an external run, shown as its conversation (it has no messages). */
export interface ConversationCall {
  id: string;
  toolName: string;
  action: string;
  status: string;
  input: unknown;
  editedInput?: unknown;
  output?: unknown;
  errorCode: string | null;
}

/** One line of the conversation, labelled by what it is, not by the API's message role. */
interface Turn {
  key: string;
  kind: 'user' | 'assistant' | 'tool-call' | 'tool-result' | 'thinking';
  label: string;
  body: ComponentChildren;
}

/** The label of a tool_use: the catalog's tool.action when a call was recorded, else the model's name. */
const toolLabel = (block: Extract<Block, { __typename: 'ToolUseBlock' }>) => block.tool ?? block.name;

/**
 * The blocks of each message as turns: text by who wrote it (a user message that holds only
 * tool results is not the user speaking), each tool call with its tool and redacted input,
 * each result as a result (an error or still pending said so), thinking as a marker only.
 */
function turnsOf(messages: ConsoleMessageFragment[]): Turn[] {
  const tools = new Map<string, string>();
  return messages.flatMap((message) =>
    message.blocks.flatMap((block, i): Turn[] => {
      const key = `${message.position}-${i}`;
      switch (block.__typename) {
        case 'TextBlock':
          return block.text.trim() === ''
            ? []
            : [
                {
                  key,
                  kind: message.role === 'assistant' ? 'assistant' : 'user',
                  label: message.role === 'assistant' ? 'Assistant' : 'User',
                  body: block.text,
                },
              ];
        case 'ThinkingBlock':
          return [
            { key, kind: 'thinking', label: 'Assistant (thinking)', body: <em>{block.redacted ? 'Thought (encrypted)' : 'Thought'}: not shown</em> },
          ];
        case 'ToolUseBlock':
          tools.set(block.toolUseId, toolLabel(block));
          return [
            {
              key,
              kind: 'tool-call',
              label: `Tool call: ${toolLabel(block)}`,
              body: (
                <>
                  {block.status && <Badge kind={block.status}>{block.status}</Badge>}
                  <Json value={block.input} label={`Input of ${toolLabel(block)} (redacted)`} />
                </>
              ),
            },
          ];
        case 'ToolResultBlock': {
          const tool = tools.get(block.toolUseId) ?? 'tool';
          const state = block.pending ? 'pending' : block.isError ? 'error' : 'ok';
          return [
            {
              key,
              kind: 'tool-result',
              label: `Tool result: ${tool}${block.pending ? ' (waiting)' : block.isError ? ' (error)' : ''}`,
              body: block.pending ? (
                <em>Not sent to the model yet{block.status ? ` (${block.status})` : ''}.</em>
              ) : (
                <Json value={block.content} label={`Result of ${tool} (${state}, redacted)`} />
              ),
            },
          ];
        }
        default:
          return [];
      }
    }),
  );
}

/** An external run's tool calls as turns: each call, then its result (or its state). */
function callTurns(calls: ConversationCall[]): Turn[] {
  return calls.flatMap((call): Turn[] => {
    const tool = `${call.toolName}.${call.action}`;
    const settled = call.status === 'succeeded' || call.status === 'failed' || call.status === 'blocked';
    return [
      {
        key: `${call.id}-call`,
        kind: 'tool-call',
        label: `Tool call: ${tool}`,
        body: (
          <>
            <Badge kind={call.status}>{call.status}</Badge>
            <Json value={call.input} label={`Input of ${tool} (redacted)`} />
          </>
        ),
      },
      ...(settled && call.output !== undefined
        ? [
            {
              key: `${call.id}-result`,
              kind: 'tool-result' as const,
              label: `Tool result: ${tool}${call.errorCode ? ' (error)' : ''}`,
              body: call.errorCode ? <code>{call.errorCode}</code> : <Json value={call.output} label={`Result of ${tool} (redacted)`} />,
            },
          ]
        : []),
    ];
  });
}

/**
 * The conversation, labelled by role, with the tool calls: a run's messages block by block,
 * or, for an external run (driven through executeToolCall or MCP, so without messages), its
 * tool calls.
 */
export function Conversation({ messages, calls, label }: { messages: ConsoleMessageFragment[]; calls: ConversationCall[]; label: string }) {
  const external = messages.length === 0;
  const turns = external ? callTurns(calls) : turnsOf(messages);
  if (turns.length === 0) return <p class="empty">Nothing said yet.</p>;
  return (
    <>
      {external && <p class="hint">An external run: its tool calls are its conversation.</p>}
      <ol class="conversation" aria-label={label}>
        {turns.map((turn) => (
          <li key={turn.key} class={`msg msg-${turn.kind}`}>
            <strong>{turn.label}</strong> {turn.body}
          </li>
        ))}
      </ol>
    </>
  );
}

/**
 * "Conversation so far" on an approval card: read when opened (a page of cards, each with its
 * whole conversation, would cost more than the API's query limit), and again on each opening.
 */
export function CardConversation({ session, runId }: { session: Session; runId: string }) {
  const [run, setRun] = useState<ConsoleConversationQuery['run'] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const onToggle = (event: Event) => {
    if (!(event.currentTarget as HTMLDetailsElement).open) return;
    session.api
      .request(ConsoleConversationDocument, { runId })
      .then((data) => {
        setRun(data.run);
        setError(null);
      })
      .catch(setError);
  };
  return (
    <details onToggle={onToggle}>
      <summary>Conversation so far{run ? ` (${turnCount(run.messages, run.toolCalls)})` : ''}</summary>
      {run ? <Conversation messages={run.messages} calls={run.toolCalls} label="Conversation so far" /> : !error && <p class="loading">Loading…</p>}
      <ErrorNote error={error} />
    </details>
  );
}

/** How many turns the conversation shows (for a summary line). */
const turnCount = (messages: ConsoleMessageFragment[], calls: ConversationCall[]) =>
  messages.length === 0 ? callTurns(calls).length : turnsOf(messages).length;
