import type { Anthropic } from '@anthropic-ai/sdk';
import { AppError } from '../errors/app-error';

/**
 * Extended thinking (issue 28, item 3). A specialist may give the model a thinking budget;
 * a run keeps the budget it started with (frozen in its metadata like its manifest), so a
 * tool loop — one assistant turn to the API — never changes its thinking configuration.
 *
 * The API's rules: `budget_tokens` is at least 1024 and below `max_tokens`. Toolgate sends
 * `max_tokens` = ANTHROPIC_MAX_TOKENS + the budget, so the answer keeps the room it has
 * without thinking and the second rule holds by construction.
 */
export const THINKING_BUDGET_MIN = 1024;
/** Anthropic's docs: budgets above 32k are rarely used in full; larger ones belong in batch jobs. */
export const THINKING_BUDGET_MAX = 32_000;

/** A budget as a specialist may store it (null: thinking off); anything else is refused INVALID_THINKING_BUDGET. */
export function checkThinkingBudget(value: number | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  if (!Number.isInteger(value) || value < THINKING_BUDGET_MIN || value > THINKING_BUDGET_MAX) {
    throw new AppError(
      'INVALID_THINKING_BUDGET',
      `thinkingBudgetTokens must be an integer from ${THINKING_BUDGET_MIN} to ${THINKING_BUDGET_MAX}, or null (thinking off)`,
      { field: 'thinkingBudgetTokens' },
    );
  }
  return value;
}

/** The run's frozen budget (runs created before thinking existed have none). */
export const runThinkingBudget = (metadata: { thinkingBudgetTokens?: unknown }): number | null =>
  typeof metadata.thinkingBudgetTokens === 'number' ? metadata.thinkingBudgetTokens : null;

/** The request's `thinking` and `max_tokens` for a budget (none: no `thinking` param at all). */
export function thinkingRequest(maxTokens: number, budget: number | null): { max_tokens: number; thinking?: Anthropic.ThinkingConfigEnabled } {
  if (budget === null) return { max_tokens: maxTokens };
  return { max_tokens: maxTokens + budget, thinking: { type: 'enabled', budget_tokens: budget } };
}

export const isThinkingBlock = (block: { type: string }): boolean => block.type === 'thinking' || block.type === 'redacted_thinking';
