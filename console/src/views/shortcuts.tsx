import { useEffect, useRef } from 'preact/hooks';

/** The queue's keys, as the help overlay lists them. */
export const SHORTCUTS: [string, string][] = [
  ['j', 'next item'],
  ['k', 'previous item'],
  ['a', 'approve the current item (with its reason, if one is typed)'],
  ['r', 'reject the current item; with no reason typed yet, go to its Reason field first (type it, Esc, r again)'],
  ['e', "edit the current item's parameters"],
  ['Esc', 'leave a field (back to its item), or close this help'],
  ['?', 'this help'],
];

export interface ShortcutActions {
  move: (step: 1 | -1) => void;
  /** The current item's card (li.card), or null when the queue is empty. */
  card: () => HTMLElement | null;
  help: () => void;
}

/** Fields that take typed text (a checkbox or a button does not: the keys still work there). */
const TYPING =
  'textarea, select, [contenteditable=""], [contenteditable="true"], input:not([type="checkbox"]):not([type="radio"]):not([type="button"]):not([type="submit"])';

/**
 * j/k/a/r/e/? on the queue. Never while typing in a field (Esc there goes back to the item),
 * never with Ctrl, Alt or Meta (the browser's own keys), never while a dialog is open. a, r
 * and e press the card's own buttons, so a key does exactly what the click does, and nothing
 * when the button is disabled (expired, resolved elsewhere, busy).
 */
export function useQueueShortcuts(actions: ShortcutActions): void {
  const latest = useRef(actions);
  latest.current = actions;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target instanceof HTMLElement ? event.target : null;
      if (document.querySelector('dialog[open]')) return;
      if (target?.closest(TYPING)) {
        const card = target.closest<HTMLElement>('li.card');
        if (event.key === 'Escape' && card) {
          event.preventDefault();
          card.focus();
        }
        return;
      }
      const { move, card, help } = latest.current;
      const press = (selector: string): boolean => {
        const button = card()?.querySelector<HTMLButtonElement>(selector);
        if (!button || button.disabled) return false;
        button.click();
        return true;
      };
      switch (event.key) {
        case 'j':
          move(1);
          break;
        case 'k':
          move(-1);
          break;
        case 'a':
          press('.resolve button.approve');
          break;
        case 'r': {
          const reason = card()?.querySelector<HTMLInputElement>('.resolve input');
          if (reason && !reason.disabled && reason.value.trim() === '') reason.focus();
          else press('.resolve button.reject');
          break;
        }
        case 'e': {
          const current = card();
          const toggle = current?.querySelector<HTMLButtonElement>('.resolve button.edit');
          if (!current || !toggle || toggle.disabled) return;
          if (toggle.getAttribute('aria-expanded') !== 'true') toggle.click();
          // The editor renders on the next frame: its first field takes the focus.
          requestAnimationFrame(() => current.querySelector<HTMLElement>('.resolve [id^="edit-"] textarea, .resolve [id^="edit-"] input')?.focus());
          break;
        }
        case '?':
          help();
          break;
        default:
          return;
      }
      event.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

/** The help overlay: a modal dialog listing the keys; Esc or Close ends it. */
export function ShortcutHelp({ open, onClose }: { open: boolean; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog ref={dialog} class="shortcut-help" aria-labelledby="shortcut-help-title" onClose={onClose}>
      <h2 id="shortcut-help-title">Keyboard shortcuts</h2>
      <dl>
        {SHORTCUTS.map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{what}</dd>
          </div>
        ))}
      </dl>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </dialog>
  );
}
