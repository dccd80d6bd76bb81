import { useEffect, useState } from 'preact/hooks';
import { ConsoleRunsDocument, type ConsoleRunsQuery, type RunFilter, type RunStatus } from '../../../gql/graphql';
import type { Session } from '../main';
import { Badge, ErrorNote, when } from '../ui';

type RunRow = ConsoleRunsQuery['runs']['edges'][number]['node'];
const STATUSES: RunStatus[] = ['queued', 'running', 'waiting_approval', 'completed', 'failed', 'cancelled'];

/** Runs of the org, newest first, filtered by status, specialist and creation time. */
export function Runs({ session }: { session: Session }) {
  const [status, setStatus] = useState('');
  const [specialistId, setSpecialistId] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [rows, setRows] = useState<RunRow[]>([]);
  const [total, setTotal] = useState(0);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const filter = (): RunFilter => ({
    status: (status || null) as RunStatus | null,
    specialistId: specialistId.trim() || null,
    created: from || to ? { from: from ? new Date(from).toISOString() : null, to: to ? new Date(to).toISOString() : null } : null,
  });
  const load = async (after: string | null) => {
    setError(null);
    try {
      const { runs } = await session.api.request(ConsoleRunsDocument, { filter: filter(), first: 25, after });
      const page = runs.edges.map((e) => e.node);
      setRows((old) => (after ? [...old, ...page] : page));
      setTotal(runs.totalCount);
      setCursor(runs.pageInfo.hasNextPage ? (runs.pageInfo.endCursor ?? null) : null);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    void load(null);
  }, []);

  return (
    <>
      <h1>
        Runs <span class="count">({total})</span>
      </h1>
      <form
        class="filters"
        aria-label="Filter runs"
        onSubmit={(e) => {
          e.preventDefault();
          void load(null);
        }}
      >
        <label>
          Status
          <select value={status} onChange={(e) => setStatus((e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Specialist id
          <input value={specialistId} onInput={(e) => setSpecialistId((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Created from
          <input type="datetime-local" value={from} onInput={(e) => setFrom((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Created before
          <input type="datetime-local" value={to} onInput={(e) => setTo((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Apply</button>
      </form>
      <ErrorNote error={error} />
      <div class="table-wrap">
        <table>
          <caption class="sr-only">Runs, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Pending</th>
              <th scope="col">Cost</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((run) => (
              <tr key={run.id}>
                <td>
                  <a href={`#/runs/${run.id}`}>{run.id.slice(0, 8)}</a> <small>{run.driver}</small>
                </td>
                <td>
                  <Badge kind={run.status}>{run.status}</Badge>
                </td>
                <td>{run.pendingApprovalCount}</td>
                <td>{cost(run.llmCostUsd, run.toolCostCents)}</td>
                <td>{when(run.createdAt)}</td>
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

export const cost = (llmUsd: number, toolCents: number): string => `$${(llmUsd + toolCents / 100).toFixed(4)}`;
