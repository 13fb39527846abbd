import type { ComponentChildren } from 'preact';
import type { WireMessage, WirePart } from '../../../api-types.ts';
import { formatCount, formatTime } from '../format.ts';
import { MarkdownText } from './markdown-text.tsx';

const ROLE_LABEL: Record<WireMessage['role'], string> = {
  user: 'You',
  assistant: 'Assistant',
  tool: 'Tool',
  system: 'System',
};

/** How a message's place in the context is written on its badge (WEB-6). */
export function stateLabel(message: Pick<WireMessage, 'state' | 'stub'>): string {
  switch (message.state) {
    case 'in-context':
      return 'in context';
    case 'summarized':
      return 'summarized';
    case 'omitted':
      return 'omitted';
    case 'stubbed':
      // FR-5.3.1: the screen shows the whole message; the badge says the model gets less.
      if (message.stub === 'clipped') return 'clipped for the model';
      return message.stub === undefined ? 'stubbed' : `stubbed (${message.stub})`;
  }
}

/** A tool call or result, shown compactly (WEB-1): one line, the details on demand. */
export function ToolLine({
  kind,
  name,
  detail,
  text,
  isError = false,
}: {
  readonly kind: 'call' | 'result';
  readonly name: string;
  readonly detail?: string;
  readonly text: string;
  readonly isError?: boolean;
}) {
  return (
    <details class={isError ? 'tool tool-error' : 'tool'}>
      <summary>
        <span class="tool-kind">
          {kind === 'call' ? 'Tool call' : isError ? 'Tool error' : 'Tool result'}
        </span>{' '}
        <code>{name}</code>
        {detail === undefined ? null : <span class="tool-detail"> {detail}</span>}
      </summary>
      <pre>{text}</pre>
    </details>
  );
}

/** Text with every case-insensitive occurrence of `query` in a `<mark>` (history search, FR-6.3.2). */
export function Highlighted({ text, query }: { readonly text: string; readonly query: string }) {
  if (query === '') return <>{text}</>;
  const lower = text.toLowerCase();
  const needle = query.toLowerCase();
  const pieces: ComponentChildren[] = [];
  let from = 0;
  for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + needle.length)) {
    if (at > from) pieces.push(text.slice(from, at));
    pieces.push(<mark key={at}>{text.slice(at, at + needle.length)}</mark>);
    from = at + needle.length;
  }
  pieces.push(text.slice(from));
  return <>{pieces}</>;
}

/** The text a "Copy" button copies: the message's text parts. */
export function messageText(message: WireMessage): string {
  return message.parts
    .map((part) => (part.type === 'text' ? part.text : ''))
    .filter((text) => text !== '')
    .join('\n\n');
}

function PartView({
  part,
  role,
  highlight,
}: {
  readonly part: WirePart;
  readonly role: WireMessage['role'];
  readonly highlight: string;
}) {
  switch (part.type) {
    case 'text':
      // A search shows matches marked in the plain text.
      if (highlight !== '') {
        return (
          <p class="plain">
            <Highlighted text={part.text} query={highlight} />
          </p>
        );
      }
      // Your own words stay as typed; the model's are rendered as (sanitised) markdown.
      return role === 'assistant' ? <MarkdownText text={part.text} /> : <p class="plain">{part.text}</p>;
    case 'reasoning':
      return (
        <details class="reasoning">
          <summary>Reasoning</summary>
          <p class="plain">{part.text}</p>
        </details>
      );
    case 'tool-call':
      return <ToolLine kind="call" name={part.name} text={part.arguments} />;
    case 'tool-result':
      return (
        <ToolLine
          kind="result"
          name={part.name ?? part.callId}
          detail={`${formatCount(part.chars)} characters`}
          text={part.text}
          isError={part.isError}
        />
      );
    case 'attachment':
      return (
        <p class="attachment">
          Attachment: {part.filename ?? part.mediaType}
          {part.size === undefined ? '' : ` (${formatCount(part.size)} bytes)`}
        </p>
      );
  }
}

/** One stored message: who wrote it, when, its place in the context, and its parts. */
export function MessageView({
  message,
  showState = false,
  highlight = '',
  actions,
}: {
  readonly message: WireMessage;
  readonly showState?: boolean;
  /** A search to mark in the text. */
  readonly highlight?: string;
  /** Buttons for this message (copy, edit, regenerate). */
  readonly actions?: ComponentChildren;
}) {
  const label = ROLE_LABEL[message.role];
  return (
    <article
      class={`message message-${message.role} state-${message.state}`}
      aria-label={`${label}, message ${message.seq}`}
      data-seq={message.seq}
      data-state={message.state}
    >
      <header class="message-head">
        <span class="message-role">{label}</span>
        <time dateTime={message.createdAt}>{formatTime(message.createdAt)}</time>
        {(showState || message.state !== 'in-context') && (
          <span class={`state-badge state-badge-${message.state}`}>{stateLabel(message)}</span>
        )}
        {actions !== undefined && <span class="message-actions">{actions}</span>}
      </header>
      {message.parts.map((part, index) => (
        <PartView key={index} part={part} role={message.role} highlight={highlight} />
      ))}
    </article>
  );
}
