import { useState } from 'preact/hooks';

/** Props of {@link Composer}. */
export interface ComposerProps {
  readonly busy: boolean;
  readonly onSend: (text: string) => void;
  readonly onStop: () => void;
}

/** The message box: Enter sends, Shift+Enter adds a line; Stop while an answer streams. */
export function Composer({ busy, onSend, onStop }: ComposerProps) {
  const [text, setText] = useState('');
  const submit = (): void => {
    if (busy || text.trim() === '') return;
    onSend(text);
    setText('');
  };
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <textarea
        aria-label="Message"
        placeholder="Write a message…"
        rows={3}
        maxLength={100_000}
        value={text}
        onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
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
        <button type="submit" disabled={text.trim() === ''}>
          Send
        </button>
      )}
    </form>
  );
}
