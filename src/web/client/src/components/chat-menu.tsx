import { useEffect, useRef, useState } from 'preact/hooks';
import { href } from '../router.ts';

/** Props of {@link ChatMenu}. */
export interface ChatMenuProps {
  readonly sessionId: string;
  readonly busy: boolean;
  readonly hasSummary: boolean;
  readonly onSummarize: () => void;
  readonly onRegenerate: () => void;
}

/**
 * The chat's actions behind one "⋯" button in the toolbar (FR-2.1.2: the summarize action in a
 * menu, not a permanent button): summarize, regenerate the summary, view the full history.
 * Escape or a click elsewhere closes it.
 */
export function ChatMenu({ sessionId, busy, hasSummary, onSummarize, onRegenerate }: ChatMenuProps) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') setOpen(false);
    };
    const onClick = (event: MouseEvent): void => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('click', onClick);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('click', onClick);
    };
  }, [open]);
  const choose = (action: () => void) => () => {
    setOpen(false);
    action();
  };
  return (
    <div class="chat-menu" ref={root}>
      <button
        type="button"
        class="icon-button toolbar-menu-button"
        aria-label="Chat actions"
        aria-expanded={open}
        aria-controls="chat-menu-items"
        onClick={() => setOpen(!open)}
      >
        ⋯
      </button>
      {open && (
        <div class="menu-popover" id="chat-menu-items">
          <button type="button" class="menu-item" onClick={choose(onSummarize)} disabled={busy}>
            Summarize conversation history
          </button>
          {hasSummary && (
            <button type="button" class="menu-item" onClick={choose(onRegenerate)} disabled={busy}>
              Regenerate summary
            </button>
          )}
          <a class="menu-item" href={href({ page: 'history', sessionId })} onClick={() => setOpen(false)}>
            View full history
          </a>
        </div>
      )}
    </div>
  );
}
