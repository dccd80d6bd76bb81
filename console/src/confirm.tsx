import { useEffect, useRef, useState } from 'preact/hooks';

/** A change that waits for the reviewer's yes: what it does, in words, and the button that does it. */
export interface Confirmation {
  title: string;
  body: string;
  confirm: string;
  run: () => void;
}

/**
 * An accessible confirmation (a modal `<dialog>`: focus held inside, Esc cancels, focus
 * returns to the control that asked). Cancel is focused first, so Enter alone never
 * confirms. `ask(confirmation)` opens it; nothing runs unless the confirm button is pressed.
 */
export function useConfirm(): { ask: (confirmation: Confirmation) => void; dialog: preact.JSX.Element } {
  const [asking, setAsking] = useState<Confirmation | null>(null);
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (asking && !dialog.open) {
      dialog.returnValue = '';
      dialog.showModal();
    }
  }, [asking]);
  const closed = () => {
    const confirmed = ref.current?.returnValue === 'confirm';
    const current = asking;
    setAsking(null);
    if (confirmed) current?.run();
  };
  const dialog = (
    <dialog ref={ref} class="confirm" aria-labelledby="confirm-title" aria-describedby="confirm-body" onClose={closed}>
      {asking && (
        <form method="dialog">
          <h2 id="confirm-title">{asking.title}</h2>
          <p id="confirm-body">{asking.body}</p>
          <div class="buttons">
            {/* biome-ignore lint/a11y/noAutofocus: the safe choice takes focus in a confirmation */}
            <button type="submit" value="cancel" autoFocus>
              Cancel
            </button>
            <button type="submit" value="confirm" class="danger">
              {asking.confirm}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
  return { ask: setAsking, dialog };
}
