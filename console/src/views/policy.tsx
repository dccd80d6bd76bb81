import { useEffect, useMemo, useState } from 'preact/hooks';
import {
  ConsolePolicyDocument,
  ConsolePublishPolicyDocument,
  ConsoleSetPolicyReplayRequiredDocument,
  ConsoleSetShadowModeDocument,
  ConsoleSimulatePolicyDocument,
  SetFeatureFlagDocument,
  type ConsolePolicyQuery,
  type PolicyRuleInput,
} from '../../../gql/graphql';
import type { Session } from '../main';
import { Badge, ErrorNote, Section } from '../ui';
import { useConfirm } from '../confirm';
import { type DraftRule, fromSaved, moved, newRule, sameDraft, toInputs } from './policy-draft';
import { RuleForm } from './policy-rule-form';
import { type Replay, ReplayResult } from './policy-replay';

const REPLAY_DAYS = 30;

/**
 * Rules in evaluation order, shadow mode and (admin) feature flags; experts read. Admins edit
 * the rules as a local draft (add, edit, reorder, delete), replay it over the last 30 days'
 * calls, and publish it whole with that replay (the only way when the org requires one).
 */
export function Policy({ session }: { session: Session }) {
  const { api, can } = session;
  const [data, setData] = useState<ConsolePolicyQuery | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // Shadow mode and flags change what every call of the org does: asked for once more.
  const { ask, dialog } = useConfirm();

  const load = () => api.request(ConsolePolicyDocument, { admin: can.editsPolicy }).then(setData).catch(setError);
  useEffect(() => {
    void load();
  }, [api]);

  const change = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      await load();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  // The draft: null while it is the saved rules; any edit forgets the replay of the one before.
  const saved = useMemo(() => data?.policyRules.map(fromSaved) ?? [], [data]);
  const [draft, setDraft] = useState<DraftRule[] | null>(null);
  const [editing, setEditing] = useState<{ rule: DraftRule; index: number | null } | null>(null);
  const [replay, setReplay] = useState<{ inputs: PolicyRuleInput[]; result: Replay } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const rules = draft ?? saved;
  const changed = draft !== null && !sameDraft(draft, saved);
  const edit = (next: DraftRule[]) => {
    setDraft(next);
    setReplay(null);
    setNotice(null);
  };
  const discard = () => {
    setDraft(null);
    setReplay(null);
    setEditing(null);
  };
  const saveRule = (rule: DraftRule) => {
    const index = editing?.index ?? null;
    edit(index === null ? [...rules, rule] : rules.map((r, i) => (i === index ? rule : r)));
    setEditing(null);
  };
  const runReplay = () =>
    change(async () => {
      const inputs = toInputs(rules);
      const to = new Date();
      const from = new Date(to.getTime() - REPLAY_DAYS * 86_400_000);
      const answer = await api.request(ConsoleSimulatePolicyDocument, { from: from.toISOString(), to: to.toISOString(), rules: inputs });
      setReplay({ inputs, result: answer.simulatePolicy });
    });
  const publish = () =>
    ask({
      title: 'Publish the draft?',
      body: `The draft's ${rules.length} rule(s) replace the organization's rules at once, for every tool call from now on.`,
      confirm: 'Publish',
      run: () =>
        change(async () => {
          // Exactly what was replayed: the server checks the replay was of this draft.
          const answer = await api.request(ConsolePublishPolicyDocument, {
            rules: replay?.inputs ?? toInputs(rules),
            replay: replay?.result.replayId ?? null,
          });
          setDraft(null);
          setReplay(null);
          setNotice(`Published: policy version ${answer.publishPolicy.policyVersion}.`);
        }),
    });

  const org = data?.viewer.org;
  return (
    <>
      {dialog}
      <h1>Policy {org && <small>version {org.policyVersion}</small>}</h1>
      {!can.editsPolicy && <p class="hint">Read only: admin keys edit the policy.</p>}
      <ErrorNote error={error} />
      {org && (
        <Section title="Shadow mode">
          <label class="switch">
            <input
              type="checkbox"
              checked={org.policyShadowMode}
              disabled={!can.editsPolicy || busy}
              onClick={(e) => {
                // The switch moves only once confirmed and the server answered.
                e.preventDefault();
                const enabled = !org.policyShadowMode;
                ask({
                  title: enabled ? 'Turn shadow mode on?' : 'Turn shadow mode off?',
                  body: enabled
                    ? 'Policy decisions will only be recorded: every tool call of the organization is allowed, including those that now need approval or are blocked.'
                    : 'Policy decisions will be enforced again: calls may be blocked or wait for approval.',
                  confirm: enabled ? 'Turn shadow mode on' : 'Turn shadow mode off',
                  run: () => change(() => api.request(ConsoleSetShadowModeDocument, { enabled })),
                });
              }}
            />
            Shadow mode {org.policyShadowMode ? 'on: decisions are recorded, every call is allowed' : 'off: decisions are enforced'}
          </label>
        </Section>
      )}
      {data && (
        <Section
          title={changed ? 'Rules, in evaluation order (draft)' : 'Rules, in evaluation order'}
          actions={
            can.editsPolicy && (
              <button type="button" disabled={busy || editing !== null} onClick={() => setEditing({ rule: newRule(), index: null })}>
                Add a rule
              </button>
            )
          }
        >
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">#</th>
                  <th scope="col">Name</th>
                  <th scope="col">Matches</th>
                  <th scope="col">Conditions</th>
                  <th scope="col">Decision</th>
                  <th scope="col">Risk</th>
                  <th scope="col">Enabled</th>
                  {can.editsPolicy && <th scope="col">Change</th>}
                </tr>
              </thead>
              <tbody>
                {rules.map((rule, index) => (
                  <tr key={rule.key}>
                    <td>{index + 1}</td>
                    <td>
                      {rule.name}
                      {rule.id === null && <small> (new)</small>}
                    </td>
                    <td>
                      <code>
                        {rule.toolPattern}.{rule.actionPattern}
                      </code>
                      {rule.roles.length > 0 && <small> for {rule.roles.join(', ')}</small>}
                    </td>
                    <td>
                      {rule.conditions.map((c, i) => (
                        <code key={i}>
                          {c.path} {c.op} {c.value}{' '}
                        </code>
                      ))}
                      {rule.history.map((h, i) => (
                        <code key={`h${i}`}>
                          {h.kind} {h.tool}
                          {h.action && `.${h.action}`} per {h.scope}
                          {h.paramPath && ` of ${h.paramPath}`}
                          {h.windowSeconds && ` in ${h.windowSeconds} s`}
                          {h.limit && ` > ${h.limit}`}{' '}
                        </code>
                      ))}
                    </td>
                    <td>
                      <Badge kind={rule.decision}>{rule.decision}</Badge>
                    </td>
                    <td>{rule.risk}</td>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Rule ${rule.name} enabled`}
                        checked={rule.enabled}
                        disabled={!can.editsPolicy || busy}
                        onChange={() => edit(rules.map((r, i) => (i === index ? { ...r, enabled: !r.enabled } : r)))}
                      />
                    </td>
                    {can.editsPolicy && (
                      <td class="rule-actions">
                        <button type="button" class="link" disabled={busy || index === 0} onClick={() => edit(moved(rules, index, -1))}>
                          Move <span class="sr-only">{rule.name} </span>up
                        </button>
                        <button type="button" class="link" disabled={busy || index === rules.length - 1} onClick={() => edit(moved(rules, index, 1))}>
                          Move <span class="sr-only">{rule.name} </span>down
                        </button>
                        <button type="button" class="link" disabled={busy || editing !== null} onClick={() => setEditing({ rule, index })}>
                          Edit<span class="sr-only"> {rule.name}</span>
                        </button>
                        <button type="button" class="link" disabled={busy} onClick={() => edit(rules.filter((_, i) => i !== index))}>
                          Delete<span class="sr-only"> {rule.name}</span>
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {rules.length === 0 && <p class="empty">No rules: the catalog's default risk decides.</p>}
          {editing && <RuleForm key={editing.rule.key} initial={editing.rule} onSave={saveRule} onCancel={() => setEditing(null)} />}
        </Section>
      )}
      {data && org && can.editsPolicy && (
        <Section title="Replay and publish">
          <p class="hint">
            {changed
              ? 'The draft is not in force: replay it over recorded calls to see what it would have decided, then publish it.'
              : 'No change yet: add, edit, move or delete rules above.'}
          </p>
          <label class="switch">
            <input
              type="checkbox"
              checked={org.policyReplayRequired}
              disabled={busy}
              onClick={(e) => {
                e.preventDefault();
                const required = !org.policyReplayRequired;
                ask({
                  title: required ? 'Require a replay before publishing?' : 'Stop requiring a replay?',
                  body: required
                    ? 'Rules will change only by publishing a whole draft with a replay of it against the current policy, run within the last 24 hours.'
                    : 'Admins will be able to change rules without replaying them first.',
                  confirm: required ? 'Require a replay' : 'Stop requiring a replay',
                  run: () => change(() => api.request(ConsoleSetPolicyReplayRequiredDocument, { required })),
                });
              }}
            />
            Replay required before publishing {org.policyReplayRequired ? 'on' : 'off'}
          </label>
          <div class="buttons">
            <button type="button" disabled={busy || rules.length > 500} onClick={runReplay}>
              Replay the last {REPLAY_DAYS} days
            </button>
            <button type="button" class="approve" disabled={busy || !changed || (org.policyReplayRequired && !replay)} onClick={publish}>
              Publish
            </button>
            <button type="button" disabled={busy || draft === null} onClick={discard}>
              Discard the draft
            </button>
          </div>
          {changed && org.policyReplayRequired && !replay && (
            <p class="hint">This organization requires a replay: replay this draft before publishing it.</p>
          )}
          {notice && (
            <p class="ok" role="status">
              {notice}
            </p>
          )}
          {replay && <ReplayResult replay={replay.result} />}
        </Section>
      )}
      {org?.featureFlags && (
        <Section title="Feature flags">
          <ul class="flags">
            {org.featureFlags.map((flag) => (
              <li key={flag.key}>
                <label class="switch">
                  <input
                    type="checkbox"
                    checked={flag.enabled}
                    disabled={busy}
                    onClick={(e) => {
                      e.preventDefault();
                      const enabled = !flag.enabled;
                      ask({
                        title: `Turn ${flag.key} ${enabled ? 'on' : 'off'}?`,
                        body: `The flag ${flag.key} changes at once for every run and call of the organization.`,
                        confirm: `Turn ${flag.key} ${enabled ? 'on' : 'off'}`,
                        run: () => change(() => api.request(SetFeatureFlagDocument, { key: flag.key, enabled })),
                      });
                    }}
                  />
                  <code>{flag.key}</code>
                </label>
              </li>
            ))}
          </ul>
        </Section>
      )}
    </>
  );
}
