import { Field, ID, Int, ObjectType, createUnionType } from 'type-graphql';
import { GraphQLJSON } from 'graphql-scalars';
import type { RunMessage } from './run-message.entity';
import type { StoredBlock } from './run-messages';
import type { ToolCallStatus } from '../gateway/tool-call.entity';
import type { LoadedToolCall } from '../gateway/tool-call.loaders';
import { ToolCallStatusEnum } from '../gateway/tool-call.types';
import { toolKey } from '../catalog/tool-key';
import { redactInput, redactOutput } from '../redaction/redact';

@ObjectType('TextBlock', { description: 'Text the user or the model wrote' })
export class TextBlockType {
  @Field()
  text!: string;
}

@ObjectType('ToolUseBlock', { description: 'The model asking for a tool call; its input redacted as the tool call stores it' })
export class ToolUseBlockType {
  @Field({ description: 'The model-given id that ties the call to its result' })
  toolUseId!: string;

  @Field({ description: 'The tool as the model named it (e.g. invoice__send)' })
  name!: string;

  @Field(() => String, { nullable: true, description: 'The catalog tool action (`tool.action`); null when no call was recorded' })
  tool!: string | null;

  @Field(() => GraphQLJSON, { description: 'The input, redacted' })
  input!: unknown;

  @Field(() => ID, { nullable: true, description: 'The tool call the gateway recorded for it' })
  toolCallId!: string | null;

  @Field(() => ToolCallStatusEnum, { nullable: true, description: "That call's status now" })
  status!: ToolCallStatus | null;
}

@ObjectType('ToolResultBlock', { description: 'What the model was told about a tool call; a succeeded result redacted as stored' })
export class ToolResultBlockType {
  @Field()
  toolUseId!: string;

  @Field({ description: 'The call failed or was blocked, rejected or expired: content is the fixed sentence the model got' })
  isError!: boolean;

  @Field({ description: 'Still waiting for a human (or for a running call to settle): not yet sent to the model' })
  pending!: boolean;

  @Field(() => GraphQLJSON, { nullable: true, description: 'The result (redacted) or the sentence; null while pending' })
  content!: unknown;

  @Field(() => ID, { nullable: true })
  toolCallId!: string | null;

  @Field(() => ToolCallStatusEnum, { nullable: true })
  status!: ToolCallStatus | null;
}

@ObjectType('ThinkingBlock', {
  description: "The model's extended thinking at this point of its turn: only a marker, its text (or encrypted data) is never shown",
})
export class ThinkingBlockType {
  @Field({ description: 'A redacted_thinking block (encrypted by the API) rather than a thinking one' })
  redacted!: boolean;
}

export const MessageBlockUnion = createUnionType({
  name: 'MessageBlock',
  description: 'One content block of a message',
  types: () => [TextBlockType, ToolUseBlockType, ToolResultBlockType, ThinkingBlockType] as const,
});

@ObjectType('RunMessage', { description: 'One message of the conversation' })
export class RunMessageType {
  @Field(() => Int)
  position!: number;

  @Field()
  role!: string;

  @Field(() => [MessageBlockUnion], { description: 'The content blocks, typed; tool inputs and results redacted' })
  blocks!: Array<TextBlockType | ToolUseBlockType | ToolResultBlockType | ThinkingBlockType>;

  @Field(() => GraphQLJSON, {
    description:
      'The same blocks in the Anthropic Messages API shape (text, tool_use, tool_result; a thinking block as `{"type":"thinking"}` without its text or signature), redacted like `blocks`',
  })
  content!: unknown;

  @Field({ description: 'The text blocks joined' })
  text!: string;

  @Field()
  createdAt!: Date;
}

/** The text blocks of a stored message, joined. */
export function messageText(message: RunMessage): string {
  return (message.content as StoredBlock[])
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text)
    .join('');
}

/**
 * A stored message as readers see it. The stored conversation is what the model saw,
 * unredacted; readers get the tool call's redacted copies (its input, its stored result),
 * and the redactor's own pass where no call was recorded.
 */
export function toRunMessageType(message: RunMessage, callsByToolUse: ReadonlyMap<string, LoadedToolCall>): RunMessageType {
  const blocks: RunMessageType['blocks'] = [];
  const content: Record<string, unknown>[] = [];
  for (const block of message.content as StoredBlock[]) {
    if (block.type === 'tool_use') {
      const id = String(block.id);
      const call = callsByToolUse.get(id) ?? null;
      const input = call ? call.inputRedacted : redactInput(block.input);
      blocks.push(
        Object.assign(new ToolUseBlockType(), {
          toolUseId: id,
          name: String(block.name),
          tool: call ? toolKey(call.toolName, call.action) : null,
          input,
          toolCallId: call?.id ?? null,
          status: call?.status ?? null,
        }),
      );
      content.push({ type: 'tool_use', id, name: block.name, input });
    } else if (block.type === 'tool_result') {
      const id = String(block.tool_use_id);
      const call = callsByToolUse.get(id) ?? null;
      const pending = block.toolgate?.pending === true;
      const isError = block.is_error === true;
      const result = pending
        ? null
        : isError
          ? block.content
          : call?.status === 'succeeded'
            ? call.outputRedacted
            : redactOutput(parseJson(block.content));
      blocks.push(
        Object.assign(new ToolResultBlockType(), {
          toolUseId: id,
          isError,
          pending,
          content: result,
          toolCallId: call?.id ?? null,
          status: call?.status ?? null,
        }),
      );
      const text = pending ? '' : typeof result === 'string' ? result : JSON.stringify(result);
      content.push({ type: 'tool_result', tool_use_id: id, ...(isError ? { is_error: true } : {}), content: text });
    } else if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      // The model's reasoning is not the conversation's: readers learn only that it was there.
      blocks.push(Object.assign(new ThinkingBlockType(), { redacted: block.type === 'redacted_thinking' }));
      content.push({ type: block.type });
    } else if (block.type === 'text' && typeof block.text === 'string') {
      blocks.push(Object.assign(new TextBlockType(), { text: block.text }));
      content.push({ type: 'text', text: block.text });
    }
  }
  return { position: message.position, role: message.role, blocks, content, text: messageText(message), createdAt: message.createdAt };
}

function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}
