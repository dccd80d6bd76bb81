import { useEffect, useRef, useState } from 'preact/hooks';
import {
  ConsoleRunCallsDocument,
  ConsoleRunDocument,
  ConsoleRunEventsDocument,
  ConsoleRunTokensDocument,
  type ConsoleRunQuery,
  type ConsoleTimelineCallFragment,
} from '../../../gql/graphql';
import type { Session } from '../main';
import { Badge, ErrorNote, Section, resolverName, when } from '../ui';
import { cost } from './runs';
import { Conversation } from './conversation';
import { ParamDiff } from './param-diff';
import { ApprovalHistory } from './approval-history';

type Run = ConsoleRunQuery['run'];

/**
 * One run, live: the model's text as it streams (runTokens), the tool-call timeline
 * (toolCallStatusChanged), and status, cost and conversation re-read on each run event.
 */
export function RunPage({ session, runId }: { session: Session; runId: string }) {
  const { api, can } = session;
  const [run, setRun] = useState<Run | null>(null);
  const [calls, setCalls] = useState<ConsoleTimelineCallFragment[]>([]);
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const reloading = useRef<Promise<void> | null>(null);

  useEffect(() => {
    let closed = false;
    const variables = { id: runId, approvals: can.approvals };
    // One reload at a time; events arriving meanwhile ask for one more.
    let again = false;
    const reload = () => {
      if (reloading.current) {
        again = true;
        return;
      }
      reloading.current = api
        .request(ConsoleRunDocument, variables)
        .then(({ run }) => {
          if (closed) return;
          setRun(run);
          setCalls((live) => mergeCalls(run.toolCalls, live));
        })
        .catch(setError)
        .finally(() => {
          reloading.current = null;
          if (again && !closed) {
            again = false;
            reload();
          }
        });
    };
    reload();
    const stops = [
      // Text the run discarded (a failed stream's attempt, a refused turn) is retracted: cut there, then place the delta at its offset.
      api.subscribe(
        ConsoleRunTokensDocument,
        { runId },
        ({ runTokens }) => setText((t) => placed(runTokens.retractFrom === null ? t : t.slice(0, Number(runTokens.retractFrom)), runTokens)),
        setError,
      ),
      api.subscribe(
        ConsoleRunCallsDocument,
        { runId, approvals: can.approvals },
        ({ toolCallStatusChanged }) => setCalls((list) => mergeCalls(list, [toolCallStatusChanged.toolCall])),
        setError,
      ),
      api.subscribe(ConsoleRunEventsDocument, { runId }, reload, setError),
    ];
    return () => {
      closed = true;
      for (const stop of stops) stop();
    };
  }, [api, can, runId]);

  return (
    <>
      <p>
        <a href="#/runs">← Runs</a>
      </p>
      <h1>
        Run <code>{runId.slice(0, 8)}</code> {run && <Badge kind={run.status}>{run.status}</Badge>}
      </h1>
      <ErrorNote error={error} />
      {run && (
        <dl class="facts" aria-label="Run facts">
          <dt>Cost</dt>
          <dd class="run-cost">
            {cost(run.llmCostUsd, run.toolCostCents)} (model ${run.llmCostUsd.toFixed(4)}, {run.inputTokens} in / {run.outputTokens} out tokens; tools{' '}
            {run.toolCostCents} ¢)
          </dd>
          <dt>Driver</dt>
          <dd>{run.driver}</dd>
          <dt>Created</dt>
          <dd>{when(run.createdAt)}</dd>
          <dt>Pending approvals</dt>
          <dd>{run.pendingApprovalCount}</dd>
          {run.errorCode && (
            <>
              <dt>Error</dt>
              <dd>
                <code>{run.errorCode}</code> {run.errorMessage}
              </dd>
            </>
          )}
        </dl>
      )}
      <div class="columns">
        <Section title="Conversation">
          <div aria-live="polite">{run && <Conversation messages={run.messages} calls={calls} label="Conversation" />}</div>
          <h3>Model output (live)</h3>
          <p class="stream" aria-live="polite" data-testid="streamed-text">
            {text || <em>Nothing streamed yet.</em>}
          </p>
        </Section>
        <Section title="Tool calls">
          <ol class="timeline" aria-label="Tool-call timeline">
            {calls.map((call) => (
              <li key={call.id} data-call-id={call.id}>
                <strong>
                  {call.toolName}.{call.action}
                </strong>{' '}
                <Badge kind={call.status}>{call.status}</Badge> {call.riskLevel && <small>risk {call.riskLevel}</small>}
                {call.errorCode && <code>{call.errorCode}</code>}
                {call.approvalRequest && (
                  <small>
                    {' '}
                    · {call.approvalRequest.kind} approval {call.approvalRequest.status}
                  </small>
                )}
                {call.approvalRequest && resolverName(call.approvalRequest) && (
                  <small class="resolved-by"> · Resolved by {resolverName(call.approvalRequest)}</small>
                )}
                {call.approvalRequest && <CallEdit call={call} />}
                <br />
                <small>
                  {when(call.createdAt)}
                  {call.durationMs !== null && call.durationMs !== undefined && ` · ${call.durationMs} ms`} · {call.costCents} ¢
                </small>
              </li>
            ))}
          </ol>
          {calls.length === 0 && <p class="empty">No tool calls yet.</p>}
        </Section>
      </div>
    </>
  );
}

/**
 * What a reviewer did to a call's approval, on the timeline: an edit as a diff (requested →
 * ran with) with who edited it and why, and the approval's history from the ledger.
 */
function CallEdit({ call }: { call: ConsoleTimelineCallFragment }) {
  const approval = call.approvalRequest;
  if (!approval) return null;
  return (
    <>
      {approval.edited && (
        <div class="call-edit">
          <p>
            <strong>Edited before approval</strong> by {resolverName(approval) ?? 'a reviewer'}
            {approval.reason ? `: “${approval.reason}”` : ''}
          </p>
          <ParamDiff before={call.input} after={call.editedInput} label={`Edited parameters of ${call.toolName}.${call.action}`} />
        </div>
      )}
      {approval.history.length > 0 && (
        <details>
          <summary>Approval history ({approval.history.length})</summary>
          <ApprovalHistory history={approval.history} label={`History of the approval of ${call.toolName}.${call.action}`} />
        </details>
      )}
    </>
  );
}

/** The run's text with a delta written at its offset: a repeat overwrites, never piles up. */
function placed(text: string, delta: { offset: string; text: string }): string {
  const offset = Number(delta.offset);
  return text.slice(0, offset).padEnd(offset) + delta.text + text.slice(offset + delta.text.length);
}

/** The newer version of each call (by updatedAt), in the order they were made. */
function mergeCalls(base: ConsoleTimelineCallFragment[], incoming: ConsoleTimelineCallFragment[]): ConsoleTimelineCallFragment[] {
  const byId = new Map(base.map((c) => [c.id, c]));
  for (const call of incoming) {
    const known = byId.get(call.id);
    if (!known || String(known.updatedAt) <= String(call.updatedAt)) byId.set(call.id, call);
  }
  return [...byId.values()].sort((a, b) => String(a.createdAt).localeCompare(String(b.createdAt)));
}
