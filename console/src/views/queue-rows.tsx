import { useEffect, useState } from 'preact/hooks';
import { Badge, timeLeft, useNow } from '../ui';
import { BulkMark, type BulkFailure } from './bulk';
import { urgency, type Item } from './queue';

/** Wide enough for the compact list beside a detail pane (the same width as styles.css's split). */
const WIDE = '(min-width: 1100px)';

/** Whether the window is wide enough for the list with a detail pane; follows resizes. */
export function useWide(): boolean {
  const [wide, setWide] = useState(() => matchMedia(WIDE).matches);
  useEffect(() => {
    const query = matchMedia(WIDE);
    const onChange = () => setWide(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return wide;
}

/** What a compact row says of the params: the amount and the customer, when the call has them. */
function facts(item: Item): string {
  const input = (item.toolCall.input ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  if (typeof input.amount === 'number') parts.push(`amount ${input.amount}`);
  if (typeof input.customerId === 'string' || typeof input.customerId === 'number') parts.push(`customer ${input.customerId}`);
  return parts.join(' · ');
}

/**
 * The compact list of wide screens: one row per item (tool.action, risk, time left, amount
 * and customer), each with its bulk checkbox; the chosen row's full card shows in the pane
 * beside it.
 */
export function QueueRows({
  items,
  chosen,
  checked,
  failures,
  mayResolve,
  onChoose,
  onToggle,
}: {
  items: Item[];
  chosen: string | null;
  checked: ReadonlySet<string>;
  failures: ReadonlyMap<string, BulkFailure>;
  mayResolve: (item: Item) => boolean;
  onChoose: (id: string) => void;
  onToggle: (id: string, checked: boolean) => void;
}) {
  const now = useNow();
  return (
    <ol class="rows" aria-label="Approval list">
      {items.map((item) => {
        const call = item.toolCall;
        const name = `${call.toolName}.${call.action}`;
        return (
          <li key={item.id} class={`row${item.id === chosen ? ' row-chosen' : ''}`} data-row-id={item.id}>
            {mayResolve(item) && (
              <BulkMark
                label={`Select ${name}, run ${item.runId.slice(0, 8)}`}
                checked={checked.has(item.id)}
                withCheckbox
                failure={null}
                onToggle={(on) => onToggle(item.id, on)}
              />
            )}
            <button type="button" class="row-open" aria-current={item.id === chosen ? 'true' : undefined} onClick={() => onChoose(item.id)}>
              <span class="row-name">{name}</span> <Badge kind={call.riskLevel ?? 'none'}>risk {call.riskLevel ?? '—'}</Badge>{' '}
              <span class={`time-left due-${urgency(item.expiresAt, now)}`}>{timeLeft(item.expiresAt, now)}</span>
              <span class="row-facts">{facts(item)}</span>
              {failures.has(item.id) && <code class="row-failure">{failures.get(item.id)!.code}</code>}
            </button>
          </li>
        );
      })}
    </ol>
  );
}
