import { Arg, Authorized, Ctx, Field, ID, InputType, Mutation, ObjectType, Resolver } from 'type-graphql';
import { GraphQLJSON } from 'graphql-scalars';
import type { RequestContext } from '../graphql/context';
import { requireCaller } from '../graphql/auth-checker';
import { ToolCallStatusEnum } from './tool-call.types';
import type { ToolCallStatus } from './tool-call.entity';
import type { ToolCallOutcome } from './gateway.types';
import { badInput } from '../errors/app-error';
import type { ToolGateway } from './gateway.service';

declare module '../graphql/context' {
  interface RequestServices {
    gateway: ToolGateway;
  }
}

const CORRELATION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

@InputType()
export class ExecuteToolCallInput {
  @Field(() => ID)
  runId!: string;

  @Field()
  toolName!: string;

  @Field()
  action!: string;

  @Field(() => GraphQLJSON, { description: "Checked against the tool's input schema" })
  params!: unknown;

  @Field({ description: 'Traces the call across systems (1-128 of A-Z a-z 0-9 . _ : -)' })
  correlationId!: string;

  @Field(() => String, { nullable: true, description: "The model's tool_use id; repeating it never runs the call twice" })
  toolUseId?: string | null;
}

@ObjectType('ToolCallError')
export class ToolCallErrorType {
  @Field({ description: 'A stable code, e.g. NOT_IN_MANIFEST or VENDOR_TIMEOUT' })
  code!: string;

  @Field({ description: 'The sentence to tell the model (never vendor text)' })
  message!: string;
}

@ObjectType('ToolCallResult', { description: 'What the gateway answers for one call (ADR-029 step 12)' })
export class ToolCallResultType {
  @Field(() => ToolCallStatusEnum)
  status!: ToolCallStatus;

  @Field(() => ID)
  toolCallId!: string;

  @Field(() => GraphQLJSON, { nullable: true, description: 'The normalized, unredacted result when succeeded' })
  result!: unknown;

  @Field(() => ToolCallErrorType, { nullable: true })
  error!: ToolCallErrorType | null;

  @Field(() => ID, { nullable: true, description: 'Set when the call waits for approval' })
  approvalRequestId!: string | null;

  @Field({ description: 'True when this answers a call made before (same toolUseId, or already executed)' })
  replayed!: boolean;

  @Field(() => GraphQLJSON, {
    nullable: true,
    description: 'Set when a reviewer changed the params before approving: the params the call ran with (redacted)',
  })
  editedParams!: unknown;
}

const toResult = (outcome: ToolCallOutcome): ToolCallResultType => ({ ...outcome, error: outcome.error });

@Resolver()
export class GatewayResolver {
  @Authorized()
  @Mutation(() => ToolCallResultType, { description: 'Run one tool call of a run through the gateway' })
  async executeToolCall(
    @Arg('input', () => ExecuteToolCallInput) input: ExecuteToolCallInput,
    @Ctx() ctx: RequestContext,
  ): Promise<ToolCallResultType> {
    if (!CORRELATION_ID.test(input.correlationId)) throw badInput('correlationId must be 1-128 of A-Z a-z 0-9 . _ : -', { field: 'correlationId' });
    if (input.toolUseId !== undefined && input.toolUseId !== null && !/^[A-Za-z0-9_-]{1,128}$/.test(input.toolUseId)) {
      throw badInput('toolUseId must be 1-128 of A-Z a-z 0-9 _ -', { field: 'toolUseId' });
    }
    if (input.toolName.length > 200 || input.action.length > 200)
      throw badInput('toolName and action must be at most 200 characters', { field: 'toolName' });
    // NUL anywhere in the arguments was refused before execution (api/nul-guard.ts).
    const outcome = await ctx.services.gateway.execute({ ...input, caller: requireCaller(ctx) });
    return toResult(outcome);
  }

  @Authorized()
  @Mutation(() => ToolCallResultType, {
    description: 'Execute a call whose approval was granted (once; later calls answer its state with replayed: true)',
  })
  async executeApprovedToolCall(@Arg('toolCallId', () => ID) toolCallId: string, @Ctx() ctx: RequestContext): Promise<ToolCallResultType> {
    return toResult(await ctx.services.gateway.executeApproved(toolCallId, requireCaller(ctx)));
  }
}
