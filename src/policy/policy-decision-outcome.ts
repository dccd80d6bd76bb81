export const POLICY_OUTCOMES = ['allow', 'observe', 'require_expert_approval', 'require_client_approval', 'block'] as const;
export type PolicyOutcome = (typeof POLICY_OUTCOMES)[number];
