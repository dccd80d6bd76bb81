import { useRef, useState } from 'preact/hooks';
import type { ComponentChildren, RefObject } from 'preact';
import type { ApprovalDecision } from '../../../gql/graphql';
import type { Session } from '../main';
import { BulkBar, BulkMark, resolveInBulk, type BulkFailure } from './bulk';
import { QueueRows, useWide } from './queue-rows';
import { ShortcutHelp, useQueueShortcuts } from './shortcuts';
import type { Item } from './queue';

const DECIDED: Record<ApprovalDecision, string> = { APPROVE: 'approved', REJECT: 'rejected' };

/**
 * What the queue offers beyond one card: the bulk selection and its bar, the compact list
 * with a detail pane on wide screens (the chosen item's card shows; the others stay mounted,
 * hidden, so each keeps its draft), and the keyboard shortcuts with their help. The inbox
 * mounts what this returns.
 */
export function useQueueTools({
  session,
  items,
  isGone,
  list,
  dismiss,
  announce,
}: {
  session: Session;
  items: Item[];
  /** Resolved elsewhere while on screen: "select all" leaves it out. */
  isGone: (id: string) => boolean;
  list: RefObject<HTMLUListElement | null>;
  dismiss: (id: string) => void;
  announce: (text: string) => void;
}) {
  const wide = useWide();
  const [chosenId, setChosenId] = useState<string | null>(null);
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
  const [failures, setFailures] = useState<ReadonlyMap<string, BulkFailure>>(new Map());
  const [helpOpen, setHelpOpen] = useState(false);
  /** Where the chosen item was: when it leaves, the item that takes its place is chosen. */
  const lastIndex = useRef(0);

  const found = items.findIndex((i) => i.id === chosenId);
  const index = found >= 0 ? found : Math.min(lastIndex.current, items.length - 1);
  lastIndex.current = Math.max(0, index);
  const chosen = index >= 0 ? (items[index]?.id ?? null) : null;
  const mayResolve = (item: Item) => session.can.resolves && session.viewer.role === item.kind;
  const resolvable = items.filter(mayResolve);
  const selectable = resolvable.filter((i) => !isGone(i.id));
  const selected = resolvable.filter((i) => checked.has(i.id));

  const cardOf = (id: string | null) => (id ? (list.current?.querySelector<HTMLElement>(`li.card[data-approval-id="${id}"]`) ?? null) : null);
  /** The item a key acts on: the one holding the focus, else the chosen one. */
  const currentCard = () => {
    const focused = document.activeElement?.closest<HTMLElement>('li.card[data-approval-id]');
    return focused && list.current?.contains(focused) ? focused : cardOf(chosen);
  };
  const choose = (id: string) => {
    setChosenId(id);
    requestAnimationFrame(() => (wide ? document.querySelector<HTMLElement>(`li.row[data-row-id="${id}"] .row-open`) : cardOf(id))?.focus());
  };

  useQueueShortcuts({
    move: (step) => {
      if (items.length === 0) return;
      // Wide: from the item in the pane. Narrow: from the focused card, else the last one chosen; else j starts at the first.
      const focused = document.activeElement?.closest<HTMLElement>('li.card[data-approval-id]')?.dataset.approvalId;
      const from = focused ?? (wide ? chosen : chosenId);
      const at = items.findIndex((i) => i.id === from);
      choose(items[Math.min(Math.max(at + step, 0), items.length - 1)].id);
    },
    card: currentCard,
    help: () => setHelpOpen(true),
  });

  const toggle = (id: string, on: boolean) =>
    setChecked((set) => {
      const next = new Set(set);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  const resolveSelected = async (decision: ApprovalDecision, reason: string | null) => {
    const ids = selected.map((i) => i.id);
    const outcome = await resolveInBulk(session.api, ids, decision, reason);
    // Resolved ones leave as one reviewer's resolution does; failed ones stay, with their code.
    for (const id of outcome.resolved) dismiss(id);
    setFailures(outcome.failed);
    setChecked(new Set());
    const codes = [...new Set([...outcome.failed.values()].map((f) => f.code))].join(', ');
    announce(`${outcome.resolved.length} ${DECIDED[decision]}${outcome.failed.size > 0 ? `; ${outcome.failed.size} not resolved (${codes})` : ''}.`);
    const firstFailed = ids.find((id) => outcome.failed.has(id));
    if (firstFailed) choose(firstFailed);
  };

  return {
    bar: resolvable.length > 0 && (
      <BulkBar
        selected={selected.length}
        shown={selectable.length}
        onSelectAll={(all) => setChecked(all ? new Set(selectable.map((i) => i.id)) : new Set())}
        onResolve={resolveSelected}
      />
    ),
    rows: wide && items.length > 0 && (
      <QueueRows items={items} chosen={chosen} checked={checked} failures={failures} mayResolve={mayResolve} onChoose={choose} onToggle={toggle} />
    ),
    wide,
    help: <ShortcutHelp open={helpOpen} onClose={() => setHelpOpen(false)} />,
    /** A card's place in the pane (hidden unless chosen, on wide screens) and its bulk mark. */
    card: (item: Item): { hidden: boolean; bulk: ComponentChildren } => ({
      hidden: wide && item.id !== chosen,
      bulk: (mayResolve(item) || failures.has(item.id)) && (
        <BulkMark
          label={`Select ${item.toolCall.toolName}.${item.toolCall.action}, run ${item.runId.slice(0, 8)}`}
          checked={checked.has(item.id)}
          withCheckbox={!wide && mayResolve(item)}
          failure={failures.get(item.id) ?? null}
          onToggle={(on) => toggle(item.id, on)}
        />
      ),
    }),
    /** Focus inside a card makes it the current item (the keys act on it). */
    onFocusIn: (event: FocusEvent) => {
      const id = (event.target as HTMLElement | null)?.closest<HTMLElement>('li.card[data-approval-id]')?.dataset.approvalId;
      if (id && id !== chosenId) setChosenId(id);
    },
  };
}
