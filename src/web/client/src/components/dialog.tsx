import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** Props of {@link Dialog}. */
export interface DialogProps {
  /** The dialog's name (its heading). */
  readonly title: string;
  /** Called when the dialog closes (Escape, a Close button). */
  readonly onClose: () => void;
  readonly children: ComponentChildren;
  readonly wide?: boolean;
}

let nextId = 0;

/**
 * A modal dialog on the native `<dialog>` element: `role="dialog"` named by its heading, focus
 * moved into it and kept there, Escape closes it, focus returns to the opener afterwards.
 */
export function Dialog({ title, onClose, children, wide = false }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const headingId = useRef(`dialog-title-${++nextId}`);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return undefined;
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    const onCancel = (event: Event): void => {
      event.preventDefault();
      onClose();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      opener?.focus();
    };
  }, [onClose]);
  return (
    <dialog
      ref={ref}
      class={wide ? 'dialog dialog-wide' : 'dialog'}
      aria-labelledby={headingId.current}
      aria-modal="true"
    >
      <h2 id={headingId.current} class="dialog-title">
        {title}
      </h2>
      {children}
    </dialog>
  );
}
