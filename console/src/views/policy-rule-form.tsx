import { useState } from 'preact/hooks';
import type { JSX } from 'preact';
import {
  asksApproval,
  CONDITION_OPS,
  type DraftHistory,
  type DraftRule,
  type DraftStep,
  HISTORY_KIND_FIELDS,
  HISTORY_KINDS,
  HISTORY_SCOPES,
  newCondition,
  newHistory,
  newStep,
  OUTCOMES,
  RISKS,
  RULE_ROLES,
} from './policy-draft';

interface SectionProps {
  rule: DraftRule;
  change: (patch: Partial<DraftRule>) => void;
}

/**
 * The parts of a rule, each a fieldset of its own: a new kind of rule field (a quorum, an
 * escalation) is one more entry here and one more field in policy-draft.ts.
 */
const SECTIONS: { title: string; Fields: (props: SectionProps) => JSX.Element }[] = [
  { title: 'What it matches', Fields: MatchFields },
  { title: "Conditions over the call's params", Fields: ParamConditionFields },
  { title: 'Conditions over history', Fields: HistoryFields },
  { title: 'What it decides', Fields: DecisionFields },
  { title: 'Who approves', Fields: ApproverFields },
];

/** Adds a rule to the draft, or edits one of it; nothing is saved until the draft is published. */
export function RuleForm({ initial, onSave, onCancel }: { initial: DraftRule; onSave: (rule: DraftRule) => void; onCancel: () => void }) {
  const [rule, setRule] = useState(initial);
  const change = (patch: Partial<DraftRule>) => setRule((current) => ({ ...current, ...patch }));
  const title = initial.name ? `Edit rule: ${initial.name}` : 'New rule';
  return (
    <form
      class="rule-form"
      aria-label={title}
      onSubmit={(e) => {
        e.preventDefault();
        onSave(rule);
      }}
    >
      <h3>{title}</h3>
      {SECTIONS.map(({ title: legend, Fields }) => (
        <fieldset key={legend}>
          <legend>{legend}</legend>
          <Fields rule={rule} change={change} />
        </fieldset>
      ))}
      <div class="buttons">
        <button type="submit" class="approve">
          Save to draft
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

const value = (e: Event) => (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;

function MatchFields({ rule, change }: SectionProps) {
  return (
    <div class="rule-fields">
      <label>
        Rule name
        <input required maxLength={200} value={rule.name} onInput={(e) => change({ name: value(e) })} />
      </label>
      <label>
        Tool pattern
        <input required value={rule.toolPattern} onInput={(e) => change({ toolPattern: value(e) })} />
      </label>
      <label>
        Action pattern
        <input required value={rule.actionPattern} onInput={(e) => change({ actionPattern: value(e) })} />
      </label>
      <fieldset class="inline">
        <legend>Caller roles (none: any)</legend>
        {RULE_ROLES.map((role) => (
          <label class="switch" key={role}>
            <input
              type="checkbox"
              checked={rule.roles.includes(role)}
              onChange={() => change({ roles: rule.roles.includes(role) ? rule.roles.filter((r) => r !== role) : [...rule.roles, role] })}
            />
            {role}
          </label>
        ))}
      </fieldset>
    </div>
  );
}

function ParamConditionFields({ rule, change }: SectionProps) {
  const set = (i: number, patch: Partial<DraftRule['conditions'][number]>) =>
    change({ conditions: rule.conditions.map((c, j) => (j === i ? { ...c, ...patch } : c)) });
  return (
    <>
      {rule.conditions.map((c, i) => (
        <div class="rule-fields" key={i}>
          <label>
            Condition {i + 1} path
            <input required placeholder="amount" value={c.path} onInput={(e) => set(i, { path: value(e) })} />
          </label>
          <label>
            Condition {i + 1} operator
            <select value={c.op} onChange={(e) => set(i, { op: value(e) as typeof c.op })}>
              {CONDITION_OPS.map((op) => (
                <option key={op}>{op}</option>
              ))}
            </select>
          </label>
          <label>
            Condition {i + 1} value (JSON)
            <input placeholder="1000" value={c.value} onInput={(e) => set(i, { value: value(e) })} />
          </label>
          <button type="button" class="link" onClick={() => change({ conditions: rule.conditions.filter((_, j) => j !== i) })}>
            Remove condition {i + 1}
          </button>
        </div>
      ))}
      <button type="button" onClick={() => change({ conditions: [...rule.conditions, newCondition()] })}>
        Add a condition
      </button>
    </>
  );
}

/** A history condition's fields follow its kind and scope: only what they read is asked. */
function HistoryFields({ rule, change }: SectionProps) {
  const set = (i: number, patch: Partial<DraftHistory>) => change({ history: rule.history.map((h, j) => (j === i ? { ...h, ...patch } : h)) });
  return (
    <>
      {rule.history.map((h, i) => {
        const reads = HISTORY_KIND_FIELDS[h.kind];
        const n = i + 1;
        return (
          <div class="rule-fields" key={i}>
            <label>
              History {n} kind
              <select value={h.kind} onChange={(e) => set(i, { kind: value(e) as DraftHistory['kind'] })}>
                {HISTORY_KINDS.map((kind) => (
                  <option key={kind}>{kind}</option>
                ))}
              </select>
            </label>
            <label>
              History {n} tool
              <input required placeholder="invoice" value={h.tool} onInput={(e) => set(i, { tool: value(e) })} />
            </label>
            <label>
              History {n} action (empty: any)
              <input value={h.action} onInput={(e) => set(i, { action: value(e) })} />
            </label>
            <label>
              History {n} scope
              <select value={h.scope} onChange={(e) => set(i, { scope: value(e) as DraftHistory['scope'] })}>
                {HISTORY_SCOPES.map((scope) => (
                  <option key={scope}>{scope}</option>
                ))}
              </select>
            </label>
            {h.scope === 'customer' && (
              <label>
                History {n} customer param
                <input required placeholder="customerId" value={h.customerPath} onInput={(e) => set(i, { customerPath: value(e) })} />
              </label>
            )}
            {reads.paramPath && (
              <label>
                History {n} param
                <input
                  required
                  placeholder={h.kind === 'sum' ? 'amount' : 'orderId'}
                  value={h.paramPath}
                  onInput={(e) => set(i, { paramPath: value(e) })}
                />
              </label>
            )}
            <label>
              History {n} window in seconds{h.scope === 'run' ? ' (empty: the whole run)' : ''}
              <input inputMode="numeric" required={h.scope !== 'run'} value={h.windowSeconds} onInput={(e) => set(i, { windowSeconds: value(e) })} />
            </label>
            {reads.limit && (
              <label>
                History {n} limit
                <input required inputMode="decimal" value={h.limit} onInput={(e) => set(i, { limit: value(e) })} />
              </label>
            )}
            <button type="button" class="link" onClick={() => change({ history: rule.history.filter((_, j) => j !== i) })}>
              Remove history condition {n}
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => change({ history: [...rule.history, newHistory()] })}>
        Add a history condition
      </button>
    </>
  );
}

function DecisionFields({ rule, change }: SectionProps) {
  return (
    <div class="rule-fields">
      <label>
        Decision
        <select value={rule.decision} onChange={(e) => change({ decision: value(e) as DraftRule['decision'] })}>
          {OUTCOMES.map((outcome) => (
            <option key={outcome}>{outcome}</option>
          ))}
        </select>
      </label>
      <label>
        Risk
        <select value={rule.risk} onChange={(e) => change({ risk: value(e) as DraftRule['risk'] })}>
          {RISKS.map((risk) => (
            <option key={risk}>{risk}</option>
          ))}
        </select>
      </label>
      <label class="switch">
        <input type="checkbox" checked={rule.enabled} onChange={() => change({ enabled: !rule.enabled })} />
        Enabled
      </label>
    </div>
  );
}

/** Approval rules: how many distinct people must approve, and who is offered the request when. */
function ApproverFields({ rule, change }: SectionProps) {
  if (!asksApproval(rule.decision)) return <p class="muted">Only a rule that asks for approval names its approvers.</p>;
  const role = rule.decision === 'require_client_approval' ? 'client' : 'expert';
  const set = (i: number, patch: Partial<DraftStep>) => change({ escalation: rule.escalation.map((s, j) => (j === i ? { ...s, ...patch } : s)) });
  return (
    <>
      <div class="rule-fields">
        <label>
          Approvers required (1–5)
          <input required inputMode="numeric" value={rule.quorum} onInput={(e) => change({ quorum: value(e) })} />
        </label>
        {rule.escalation.length > 0 && (
          <label>
            Expires after (seconds)
            <input required inputMode="numeric" value={rule.expireAfterSeconds} onInput={(e) => change({ expireAfterSeconds: value(e) })} />
          </label>
        )}
      </div>
      {rule.escalation.map((step, i) => {
        const n = i + 1;
        return (
          <div class="rule-fields" key={`step-${n}`}>
            <label>
              Step {n} after (seconds)
              <input required inputMode="numeric" value={step.afterSeconds} onInput={(e) => set(i, { afterSeconds: value(e) })} />
            </label>
            <label>
              Step {n} group paged (empty: none)
              <input value={step.group} onInput={(e) => set(i, { group: value(e) })} />
            </label>
            <button type="button" class="link" onClick={() => change({ escalation: rule.escalation.filter((_, j) => j !== i) })}>
              Remove step {n}
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => change({ escalation: [...rule.escalation, newStep(role)] })}>
        Add an escalation step
      </button>
    </>
  );
}
