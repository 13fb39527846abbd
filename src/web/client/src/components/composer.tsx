import { useEffect, useRef } from 'preact/hooks';
import { formatCount } from '../format.ts';

/** Props of {@link Composer}. */
export interface ComposerProps {
  readonly busy: boolean;
  /** The text in the box (the chat keeps it, so "Edit" can put a message back). */
  readonly draft: string;
  readonly onDraft: (text: string) => void;
  readonly onSend: (text: string) => void;
  readonly onStop: () => void;
  /** Tokens one message may use and still be sent whole (FR-5.3.1); unknown on the start page. */
  readonly maxMessageTokens?: number;
  /** Focus the box when it appears (the start page, after "Continue without summarizing"). */
  readonly autoFocus?: boolean;
  /** Changes to ask for focus again. */
  readonly focusKey?: number;
}

/** Characters per token of the estimate shown before sending (a count needs the server). */
const CHARS_PER_TOKEN = 4;

/**
 * The message box: Enter sends, Shift+Enter adds a line; Stop while an answer streams. A
 * message longer than one message may be in the model's context is announced before it is
 * sent (FR-5.3.1): it will reach the model shortened in the middle, while the history keeps it
 * whole.
 */
export function Composer({
  busy,
  draft,
  onDraft,
  onSend,
  onStop,
  maxMessageTokens,
  autoFocus = false,
  focusKey = 0,
}: ComposerProps) {
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    if (!(autoFocus || focusKey > 0)) return undefined;
    // After a closing dialog has handed focus back to its opener.
    const timer = setTimeout(() => box.current?.focus(), 0);
    return () => clearTimeout(timer);
  }, [autoFocus, focusKey]);
  const estimate = Math.ceil(draft.length / CHARS_PER_TOKEN);
  const tooLong = maxMessageTokens !== undefined && estimate > maxMessageTokens;
  const submit = (): void => {
    if (busy || draft.trim() === '') return;
    onSend(draft);
    onDraft('');
  };
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      {tooLong && (
        <p class="warning composer-warning" id="composer-warning" role="status">
          This message is about {formatCount(estimate)} tokens; one message may use{' '}
          {formatCount(maxMessageTokens)}. The model will get it shortened in the middle (the history keeps it
          whole). Send it in parts to keep every word in context.
        </p>
      )}
      <div class="composer-row">
        <textarea
          ref={box}
          aria-label="Message"
          aria-describedby={tooLong ? 'composer-warning' : undefined}
          placeholder="Write a message…  (Enter sends, Shift+Enter adds a line)"
          rows={2}
          maxLength={100_000}
          value={draft}
          onInput={(event) => onDraft((event.target as HTMLTextAreaElement).value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
              event.preventDefault();
              submit();
            }
          }}
        />
        {busy ? (
          <button type="button" class="danger" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={draft.trim() === ''}>
            Send
          </button>
        )}
      </div>
    </form>
  );
}
