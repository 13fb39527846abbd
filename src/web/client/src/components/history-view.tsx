import { useCallback, useEffect, useState } from 'preact/hooks';
import type { HistoryPage, HistoryQuery, WireCompaction, WireMessage } from '../../../api-types.ts';
import { call } from '../api.ts';
import { formatCount, formatDuration, formatTime, plural } from '../format.ts';
import { href } from '../router.ts';
import { MessageView } from './message-view.tsx';

const MODE: Record<WireCompaction['mode'], string> = {
  auto: 'automatic',
  manual: 'manual',
  overflow: 'overflow',
};

/** The compactions of a session (WEB-6): mode, time, tokens before → after, duration, summarizer model. */
export function CompactionsTable({ compactions }: { readonly compactions: readonly WireCompaction[] }) {
  if (compactions.length === 0) return <p class="muted">No compactions yet.</p>;
  return (
    // Focusable so a keyboard can scroll it sideways on a narrow screen (a scrollable region
    // must be reachable by keyboard).
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region is focusable so keys scroll it
    <section class="table-scroll" tabIndex={0} aria-label="Compactions (scrolls sideways)">
      <table class="compactions">
        <caption class="visually-hidden">Compactions</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Trigger</th>
            <th scope="col">Tokens before → after</th>
            <th scope="col">Messages summarized</th>
            <th scope="col">Duration</th>
            <th scope="col">Summarizer</th>
          </tr>
        </thead>
        <tbody>
          {compactions.map((compaction) => (
            <tr key={compaction.id}>
              <td>{formatTime(compaction.createdAt)}</td>
              <td>{MODE[compaction.mode]}</td>
              <td>
                {formatCount(compaction.tokensBefore)} → {formatCount(compaction.tokensAfter)}
              </td>
              <td>{formatCount(compaction.messagesCovered)}</td>
              <td>{compaction.durationMs === undefined ? '—' : formatDuration(compaction.durationMs)}</td>
              <td>
                {compaction.summarizerModel ??
                  (compaction.summarySource === 'extractive' ? 'extractive (no model)' : '—')}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/**
 * "View full history" (WEB-6, FR-6.3): every original message in a separate view, clearly
 * marked as not the active context, searchable, each message marked in context / summarized /
 * stubbed, and the list of compactions.
 */
export function HistoryView({ sessionId }: { readonly sessionId: string }) {
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  const [messages, setMessages] = useState<readonly WireMessage[]>([]);
  const [page, setPage] = useState<HistoryPage | undefined>(undefined);
  const [compactions, setCompactions] = useState<readonly WireCompaction[] | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  const load = useCallback(
    async (text: string, before?: number) => {
      const query: HistoryQuery = {
        ...(text === '' ? {} : { query: text }),
        ...(before === undefined ? {} : { before: String(before) }),
      };
      try {
        const next = await call('GET /api/sessions/:id/history', { id: sessionId, query });
        setPage(next);
        setMessages((current) => (before === undefined ? next.messages : [...next.messages, ...current]));
        setError(undefined);
      } catch (failure) {
        setError((failure as Error).message);
      }
    },
    [sessionId],
  );

  useEffect(() => {
    void load(query);
  }, [load, query]);

  useEffect(() => {
    call('GET /api/sessions/:id/compactions', { id: sessionId }).then(
      (body) => setCompactions(body.compactions),
      (failure: Error) => setError(failure.message),
    );
  }, [sessionId]);

  return (
    <section class="page history" aria-labelledby="history-title">
      <header class="page-head">
        <h1 id="history-title">Full history</h1>
        <a class="button secondary" href={href({ page: 'chat', sessionId })}>
          Back to the chat
        </a>
      </header>
      <p class="not-context" role="note">
        <strong>This is not the active context.</strong> It lists every original message. The model sees the
        summary and the messages marked “in context”; “summarized” messages are folded into the summary and
        “stubbed” ones are sent shortened.
      </p>
      <search aria-label="Search the full history">
        <form
          class="search"
          onSubmit={(event) => {
            event.preventDefault();
            setQuery(draft.trim());
          }}
        >
          <input
            type="search"
            aria-label="Search history"
            placeholder="Search every message…"
            maxLength={500}
            value={draft}
            onInput={(event) => setDraft((event.target as HTMLInputElement).value)}
          />
          <button type="submit">Search</button>
          {query !== '' && (
            <button
              type="button"
              class="secondary"
              onClick={() => {
                setDraft('');
                setQuery('');
              }}
            >
              Clear
            </button>
          )}
        </form>
      </search>
      {error !== undefined && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {page !== undefined && (
        <p class="muted" aria-live="polite">
          {/* The page's own query, so the line changes only when the results for it arrive. */}
          {page.query === undefined
            ? `${plural(page.total, 'message')} in history.`
            : `${plural(messages.length, 'message')} match “${page.query}”.`}
        </p>
      )}
      {page?.nextBefore !== undefined && (
        <button type="button" class="secondary" onClick={() => void load(query, page.nextBefore)}>
          Load earlier messages
        </button>
      )}
      <section class="history-list" aria-label="History messages">
        {messages.map((message) => (
          <MessageView key={message.id} message={message} showState highlight={page?.query ?? ''} />
        ))}
      </section>
      <h2>Compactions</h2>
      {compactions === undefined ? (
        <p class="muted">Loading…</p>
      ) : (
        <CompactionsTable compactions={compactions} />
      )}
    </section>
  );
}
