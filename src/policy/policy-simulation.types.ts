import { Field, ID, Int, ObjectType } from 'type-graphql';
import { PolicyOutcomeEnum } from './policy-decision.types';
import type { PolicyOutcome } from './policy-decision-outcome';
import { PolicyRuleType } from './policy-rule.types';

@ObjectType('SimulatedRule', { description: 'A rule of the draft: its place in the list sent, and the saved rule it would replace' })
export class SimulatedRuleType {
  @Field(() => Int, { description: 'Its index in the draft list (0-based)' })
  index!: number;

  @Field(() => ID, { nullable: true, description: 'The id it was sent with (a saved rule it would replace); null: a new rule' })
  id!: string | null;

  @Field()
  name!: string;

  @Field(() => Int)
  position!: number;
}

@ObjectType('SimulatedChange', { description: 'Recorded calls the draft decides otherwise, by old outcome, new outcome and deciding rule' })
export class SimulatedChangeType {
  @Field(() => PolicyOutcomeEnum, { description: 'What the rules decided then (in shadow mode: the shadow outcome)' })
  oldOutcome!: PolicyOutcome;

  @Field(() => PolicyOutcomeEnum, { nullable: true, description: 'What the draft decides; null: undecidable (a condition reads a redacted value)' })
  newOutcome!: PolicyOutcome | null;

  @Field(() => SimulatedRuleType, { nullable: true, description: 'The rule that decides (or cannot be decided); null: the catalog default' })
  rule!: SimulatedRuleType | null;

  @Field(() => Int)
  count!: number;
}

@ObjectType('PolicyPublication', { description: 'A draft published as the whole rule set' })
export class PolicyPublicationType {
  @Field(() => Int, { description: 'The new policy version' })
  policyVersion!: number;

  @Field(() => [PolicyRuleType], { description: 'The rules now in force, in evaluation order' })
  rules!: PolicyRuleType[];
}

@ObjectType('SimulationExample', { description: 'One recorded call the draft decides otherwise, or cannot decide' })
export class SimulationExampleType {
  @Field(() => ID)
  toolCallId!: string;

  @Field()
  toolName!: string;

  @Field()
  action!: string;

  @Field()
  createdAt!: Date;

  @Field(() => PolicyOutcomeEnum)
  oldOutcome!: PolicyOutcome;

  @Field(() => ID, { nullable: true, description: 'The saved rule that decided it then (null: the catalog default, or a rule since deleted)' })
  oldMatchedRuleId!: string | null;

  @Field({ description: 'The recorded reason of the old decision' })
  oldReason!: string;

  @Field(() => PolicyOutcomeEnum, { nullable: true, description: 'null: undecidable' })
  newOutcome!: PolicyOutcome | null;

  @Field(() => SimulatedRuleType, { nullable: true })
  rule!: SimulatedRuleType | null;
}

@ObjectType('PolicySimulation', { description: 'A draft rule set replayed over recorded calls; only the replay itself was recorded' })
export class PolicySimulationType {
  @Field(() => ID, { description: 'The recorded replay: publishPolicy names it to publish this exact draft' })
  replayId!: string;

  @Field(() => Int, { description: 'The policy version the calls were replayed under' })
  policyVersion!: number;

  @Field(() => Int, { description: 'Recorded calls with a policy decision in the range' })
  callsRead!: number;

  @Field(() => Int, { description: 'Calls the draft decides otherwise' })
  changedCount!: number;

  @Field(() => Int, { description: 'Calls the draft cannot decide: a condition reads a value redaction hid' })
  undecidableCount!: number;

  @Field(() => [SimulatedChangeType], { description: 'Changed and undecidable calls grouped, largest group first' })
  changes!: SimulatedChangeType[];

  @Field(() => [SimulationExampleType], { description: 'The first `first` of them, oldest first' })
  examples!: SimulationExampleType[];

  @Field(() => Int, {
    description:
      "The org's enabled Cedar policies, which a replay does not evaluate: when above 0, a call a Cedar policy decided may show as changed",
  })
  cedarPoliciesNotReplayed!: number;
}
