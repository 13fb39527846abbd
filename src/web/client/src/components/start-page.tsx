import { useState } from 'preact/hooks';
import { Composer } from './composer.tsx';

/**
 * The start page: a message box at once (a newcomer types on arrival); the first message
 * creates the chat and is sent there.
 */
export function StartPage({ onStart }: { readonly onStart: (text: string) => void }) {
  const [draft, setDraft] = useState('');
  return (
    <section class="start" aria-labelledby="home-title">
      <div class="start-intro">
        <h1 id="home-title">What would you like to talk about?</h1>
        <p class="muted">
          Long conversations stay inside the model's context window: older messages are summarized, nothing is
          deleted, and the gauge shows how full the context is.
        </p>
      </div>
      <Composer
        busy={false}
        draft={draft}
        onDraft={setDraft}
        onSend={onStart}
        onStop={() => undefined}
        autoFocus
      />
    </section>
  );
}
