import { MarkdownText } from './markdown-text.tsx';
import { ToolLine } from './message-view.tsx';

/** What a turn has streamed so far. */
export type StreamItem =
  | { readonly kind: 'text'; readonly text: string }
  | {
      readonly kind: 'tool';
      readonly callId: string;
      readonly name: string;
      readonly input: string;
      readonly path?: string;
      readonly output?: string;
      readonly isError?: boolean;
    }
  | { readonly kind: 'note'; readonly text: string; readonly tone: 'info' | 'warning' | 'error' };

/** The user's message and the answer as it streams (WEB-1), before the turn is stored. */
export function StreamingTurn({
  user,
  items,
  busy,
  stopped = false,
}: {
  readonly user: string;
  readonly items: readonly StreamItem[];
  readonly busy: boolean;
  /** Stopped by the user: the partial answer stays as it is. */
  readonly stopped?: boolean;
}) {
  return (
    <>
      <article class="message message-user" aria-label="You, sending">
        <header class="message-head">
          <span class="message-role">You</span>
        </header>
        <p class="plain">{user}</p>
      </article>
      <article class="message message-assistant streaming" aria-label="Assistant, answering" aria-busy={busy}>
        <header class="message-head">
          <span class="message-role">Assistant</span>
          {busy && <span class="typing" aria-hidden="true" />}
          {stopped && <span class="state-badge">stopped</span>}
        </header>
        {items.map((item, index) => {
          if (item.kind === 'text') return <MarkdownText key={index} text={item.text} />;
          if (item.kind === 'note') {
            return (
              <p key={index} class={`turn-note turn-note-${item.tone}`}>
                {item.text}
              </p>
            );
          }
          return (
            <ToolLine
              key={index}
              kind={item.output === undefined ? 'call' : 'result'}
              name={item.name}
              {...(item.path === undefined ? {} : { detail: item.path })}
              text={item.output === undefined ? item.input : `${item.input}\n\n→ ${item.output}`}
              isError={item.isError === true}
            />
          );
        })}
      </article>
    </>
  );
}
