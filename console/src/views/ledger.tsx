import { useEffect, useState } from 'preact/hooks';
import {
  ConsoleLedgerDocument,
  ConsoleVerifyLedgerDocument,
  type ConsoleLedgerQuery,
  type ConsoleVerifyLedgerQuery,
  type LedgerEventFilter,
} from '../../../gql/graphql';
import type { Session } from '../main';
import { ErrorNote, when } from '../ui';

type Row = ConsoleLedgerQuery['ledgerEvents']['edges'][number]['node'];

/** The audit ledger in sequence order, filtered by run, resource, type and time; and its verification. */
export function Ledger({ session }: { session: Session }) {
  const [runId, setRunId] = useState('');
  const [resourceId, setResourceId] = useState('');
  const [type, setType] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [rows, setRows] = useState<Row[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [verification, setVerification] = useState<ConsoleVerifyLedgerQuery['verifyLedger'] | null>(null);
  const [verifying, setVerifying] = useState(false);

  const filter = (): LedgerEventFilter => ({
    runId: runId.trim() || null,
    resourceId: resourceId.trim() || null,
    type: type.trim() || null,
    created: from || to ? { from: from ? new Date(from).toISOString() : null, to: to ? new Date(to).toISOString() : null } : null,
  });
  const load = async (after: string | null) => {
    setError(null);
    try {
      const { ledgerEvents } = await session.api.request(ConsoleLedgerDocument, { filter: filter(), first: 50, after });
      const page = ledgerEvents.edges.map((e) => e.node);
      setRows((old) => (after ? [...old, ...page] : page));
      setCursor(ledgerEvents.pageInfo.hasNextPage ? (ledgerEvents.pageInfo.endCursor ?? null) : null);
    } catch (e) {
      // A failed filter shows no rows: results under the error would look like its answer.
      if (!after) {
        setRows([]);
        setCursor(null);
      }
      setError(e);
    }
  };
  const verify = async () => {
    setVerifying(true);
    setError(null);
    try {
      setVerification((await session.api.request(ConsoleVerifyLedgerDocument, {})).verifyLedger);
    } catch (e) {
      setError(e);
    } finally {
      setVerifying(false);
    }
  };
  useEffect(() => {
    void load(null);
  }, []);

  const text = (set: (v: string) => void) => (e: Event) => set((e.target as HTMLInputElement).value);
  return (
    <>
      <h1>Ledger</h1>
      <div class="verify">
        <button type="button" onClick={verify} disabled={verifying}>
          {verifying ? 'Verifying…' : 'Verify the chain'}
        </button>
        {verification && (
          <p role="status" class={verification.ok ? 'ok' : 'error'}>
            {verification.ok
              ? `Intact: ${verification.eventsChecked} events checked.`
              : `Broken: ${verification.problem} at sequence ${verification.firstBadSequence ?? '—'} (${verification.eventsChecked} checked).`}
          </p>
        )}
      </div>
      <form
        class="filters"
        aria-label="Filter the ledger"
        onSubmit={(e) => {
          e.preventDefault();
          void load(null);
        }}
      >
        <label>
          Run id
          <input value={runId} onInput={text(setRunId)} />
        </label>
        <label>
          Resource id
          <input value={resourceId} onInput={text(setResourceId)} />
        </label>
        <label>
          Type
          <input value={type} onInput={text(setType)} placeholder="tool_call.blocked" />
        </label>
        <label>
          From
          <input type="datetime-local" value={from} onInput={text(setFrom)} />
        </label>
        <label>
          Before
          <input type="datetime-local" value={to} onInput={text(setTo)} />
        </label>
        <button type="submit">Apply</button>
      </form>
      <ErrorNote error={error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Ledger events in sequence order</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Type</th>
              <th scope="col">Run</th>
              <th scope="col">Resource</th>
              <th scope="col">Actor</th>
              <th scope="col">At</th>
              <th scope="col">Metadata</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((event) => (
              <tr key={event.id}>
                <td>{event.sequence}</td>
                <td>
                  <code>{event.type}</code>
                </td>
                <td>{event.runId ? <a href={`#/runs/${event.runId}`}>{event.runId.slice(0, 8)}</a> : '—'}</td>
                <td>{event.resourceId?.slice(0, 8) ?? '—'}</td>
                <td>{event.actorName ?? event.actorRole ?? '—'}</td>
                <td>{when(event.createdAt)}</td>
                <td>
                  <code class="meta">{JSON.stringify(event.metadata)}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {cursor && (
        <button type="button" onClick={() => load(cursor)}>
          Load more
        </button>
      )}
    </>
  );
}
