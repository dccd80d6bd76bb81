// The ordered list of migrations, loaded as code so that the compiled server and the
// swc-transformed tests run the same files. `npm run migration:create` rewrites this file.
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261129224430_initial } from './Migration20261129224430_initial';
import { Migration20261129230515_gateway } from './Migration20261129230515_gateway';
import { Migration20261129233633_runtime } from './Migration20261129233633_runtime';
import { Migration20261129235224_policy_rule_scope } from './Migration20261129235224_policy_rule_scope';
import { Migration20261201124813_recovery } from './Migration20261201124813_recovery';
import { Migration20261201160000_ledger_head } from './Migration20261201160000_ledger_head';
import { Migration20261201174404_key_lifecycle } from './Migration20261201174404_key_lifecycle';
import { Migration20261201174503_ledger_tamper } from './Migration20261201174503_ledger_tamper';
import { Migration20261201180000_upstream_mcp } from './Migration20261201180000_upstream_mcp';
import { Migration20261201190000_rate_limits } from './Migration20261201190000_rate_limits';
import { Migration20261201191500_upstream_cost } from './Migration20261201191500_upstream_cost';
import { Migration20261201202801_webhooks } from './Migration20261201202801_webhooks';
import { Migration20261201203000_append_point_tool_use } from './Migration20261201203000_append_point_tool_use';
import { Migration20261202090000_approval_edits } from './Migration20261202090000_approval_edits';
import { Migration20261204190000_call_fingerprint } from './Migration20261204190000_call_fingerprint';
import { Migration20261205120000_message_stop_reason } from './Migration20261205120000_message_stop_reason';
import { Migration20261206100000_specialist_thinking } from './Migration20261206100000_specialist_thinking';
import { Migration20261206101000_prompt_cache_usage } from './Migration20261206101000_prompt_cache_usage';
import { Migration20261206130000_upstream_pins } from './Migration20261206130000_upstream_pins';
import { Migration20261206140000_webhook_org_queue } from './Migration20261206140000_webhook_org_queue';
import { Migration20261206150000_run_owner } from './Migration20261206150000_run_owner';
import { Migration20261207110000_review_acknowledgement } from './Migration20261207110000_review_acknowledgement';
import { Migration20261208090000_identity } from './Migration20261208090000_identity';
import { Migration20261208091000_policy_history } from './Migration20261208091000_policy_history';
import { Migration20261208100000_cedar_policies } from './Migration20261208100000_cedar_policies';

export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261129224430_initial', class: Migration20261129224430_initial },
  { name: 'Migration20261129230515_gateway', class: Migration20261129230515_gateway },
  { name: 'Migration20261129233633_runtime', class: Migration20261129233633_runtime },
  { name: 'Migration20261129235224_policy_rule_scope', class: Migration20261129235224_policy_rule_scope },
  { name: 'Migration20261201124813_recovery', class: Migration20261201124813_recovery },
  { name: 'Migration20261201160000_ledger_head', class: Migration20261201160000_ledger_head },
  { name: 'Migration20261201174404_key_lifecycle', class: Migration20261201174404_key_lifecycle },
  { name: 'Migration20261201174503_ledger_tamper', class: Migration20261201174503_ledger_tamper },
  { name: 'Migration20261201180000_upstream_mcp', class: Migration20261201180000_upstream_mcp },
  { name: 'Migration20261201190000_rate_limits', class: Migration20261201190000_rate_limits },
  { name: 'Migration20261201191500_upstream_cost', class: Migration20261201191500_upstream_cost },
  { name: 'Migration20261201202801_webhooks', class: Migration20261201202801_webhooks },
  { name: 'Migration20261201203000_append_point_tool_use', class: Migration20261201203000_append_point_tool_use },
  { name: 'Migration20261202090000_approval_edits', class: Migration20261202090000_approval_edits },
  { name: 'Migration20261204190000_call_fingerprint', class: Migration20261204190000_call_fingerprint },
  { name: 'Migration20261205120000_message_stop_reason', class: Migration20261205120000_message_stop_reason },
  { name: 'Migration20261206100000_specialist_thinking', class: Migration20261206100000_specialist_thinking },
  { name: 'Migration20261206101000_prompt_cache_usage', class: Migration20261206101000_prompt_cache_usage },
  { name: 'Migration20261206130000_upstream_pins', class: Migration20261206130000_upstream_pins },
  { name: 'Migration20261206140000_webhook_org_queue', class: Migration20261206140000_webhook_org_queue },
  { name: 'Migration20261206150000_run_owner', class: Migration20261206150000_run_owner },
  { name: 'Migration20261207110000_review_acknowledgement', class: Migration20261207110000_review_acknowledgement },
  { name: 'Migration20261208090000_identity', class: Migration20261208090000_identity },
  { name: 'Migration20261208091000_policy_history', class: Migration20261208091000_policy_history },
  { name: 'Migration20261208100000_cedar_policies', class: Migration20261208100000_cedar_policies },
];
