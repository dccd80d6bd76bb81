import { useEffect, useState } from 'preact/hooks';
import {
  ConsolePolicyDocument,
  ConsoleSetShadowModeDocument,
  ConsoleUpsertPolicyRuleDocument,
  SetFeatureFlagDocument,
  type ConsolePolicyQuery,
  type ConsolePolicyRuleFragment,
} from '../../../gql/graphql';
import type { Session } from '../main';
import { Badge, ErrorNote, Section } from '../ui';
import { useConfirm } from '../confirm';

/** Rules in evaluation order, shadow mode and (admin) feature flags; admins edit, experts read. */
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
  const toggleRule = (rule: ConsolePolicyRuleFragment) =>
    change(() =>
      api.request(ConsoleUpsertPolicyRuleDocument, {
        input: {
          id: rule.id,
          name: rule.name,
          position: rule.position,
          toolPattern: rule.toolPattern,
          actionPattern: rule.actionPattern,
          decision: rule.decision,
          risk: rule.risk,
          roles: rule.roles,
          specialistId: rule.specialistId,
          conditions: rule.conditions.map((c) => ({ path: c.path, op: c.op, value: c.value })),
          enabled: !rule.enabled,
        },
      }),
    );

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
        <Section title="Rules, in evaluation order">
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
                </tr>
              </thead>
              <tbody>
                {data.policyRules.map((rule) => (
                  <tr key={rule.id}>
                    <td>{rule.position}</td>
                    <td>{rule.name}</td>
                    <td>
                      <code>
                        {rule.toolPattern}.{rule.actionPattern}
                      </code>
                      {rule.roles.length > 0 && <small> for {rule.roles.join(', ')}</small>}
                    </td>
                    <td>
                      {rule.conditions.map((c) => (
                        <code key={`${c.path}${c.op}`}>
                          {c.path} {c.op} {JSON.stringify(c.value)}{' '}
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
                        onChange={() => toggleRule(rule)}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {data.policyRules.length === 0 && <p class="empty">No rules: the catalog's default risk decides.</p>}
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
