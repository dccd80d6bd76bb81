import type { ConsoleSimulatePolicyQuery } from '../../../gql/graphql';
import { Badge, when } from '../ui';

export type Replay = ConsoleSimulatePolicyQuery['simulatePolicy'];

const ruleName = (rule: { index: number; name: string } | null) => (rule ? `#${rule.index + 1} ${rule.name}` : 'catalog default');

function Outcome({ outcome }: { outcome: string | null }) {
  return outcome ? <Badge kind={outcome}>{outcome}</Badge> : <Badge kind="undecidable">undecidable</Badge>;
}

/** What the draft would have decided otherwise over the replayed calls: by rule and outcome, then the first calls. */
export function ReplayResult({ replay }: { replay: Replay }) {
  return (
    <div class="replay">
      <p role="status">
        Replayed {replay.callsRead} recorded call(s) of the last 30 days: {replay.changedCount} decided otherwise, {replay.undecidableCount}{' '}
        undecidable (a condition reads a redacted value).
      </p>
      {replay.changes.length > 0 && (
        <div class="table-wrap">
          <table aria-label="Changed decisions">
            <thead>
              <tr>
                <th scope="col">Calls</th>
                <th scope="col">Old decision</th>
                <th scope="col">New decision</th>
                <th scope="col">Rule of the draft</th>
              </tr>
            </thead>
            <tbody>
              {replay.changes.map((change) => (
                <tr key={`${change.oldOutcome}-${change.newOutcome}-${change.rule?.index ?? '-'}`}>
                  <td>{change.count}</td>
                  <td>
                    <Outcome outcome={change.oldOutcome} />
                  </td>
                  <td>
                    <Outcome outcome={change.newOutcome} />
                  </td>
                  <td>{ruleName(change.rule)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {replay.examples.length > 0 && (
        <div class="table-wrap">
          <table aria-label="Example calls">
            <thead>
              <tr>
                <th scope="col">Call</th>
                <th scope="col">When</th>
                <th scope="col">Old decision</th>
                <th scope="col">New decision</th>
                <th scope="col">Rule of the draft</th>
              </tr>
            </thead>
            <tbody>
              {replay.examples.map((example) => (
                <tr key={example.toolCallId}>
                  <td>
                    <code>
                      {example.toolName}.{example.action}
                    </code>{' '}
                    <small>{example.toolCallId}</small>
                  </td>
                  <td>{when(example.createdAt)}</td>
                  <td>
                    <Outcome outcome={example.oldOutcome} /> <small>{example.oldReason}</small>
                  </td>
                  <td>
                    <Outcome outcome={example.newOutcome} />
                  </td>
                  <td>{ruleName(example.rule)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
