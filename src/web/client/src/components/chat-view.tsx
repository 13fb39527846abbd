import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Gauge, SessionView, StreamEvent, WireSession } from '../../../api-types.ts';
import { api, sessionPath, streamEvents } from '../api.ts';
import { formatCount, plural } from '../format.ts';
import { href } from '../router.ts';
import { CompactionDialog, type CompactionDialogMode } from './compaction-dialog.tsx';
import { CompactionNotice } from './compaction-notice.tsx';
import { Composer } from './composer.tsx';
import { ContextGauge } from './context-gauge.tsx';
import { MessageView } from './message-view.tsx';
import { type StreamItem, StreamingTurn } from './streaming-turn.tsx';
import { SummaryPanel } from './summary-panel.tsx';

/** Props of {@link ChatView}. */
export interface ChatViewProps {
  readonly sessionId: string;
  /** The session as the list knows it (a rename shows at once). */
  readonly listed: WireSession | undefined;
  /** Show the auto-compaction notice (FR-1.6.4). */
  readonly notifications: boolean;
  /** A dialog the session menu asked for. */
  readonly requestedDialog: CompactionDialogMode | undefined;
  readonly onDialogOpened: () => void;
  /** The session changed (title, message count): refresh the list. */
  readonly onSessionChanged: (session: WireSession) => void;
}

interface Turn {
  readonly user: string;
  readonly items: readonly StreamItem[];
}

/** Applies one streamed event to the turn's items. */
function applyEvent(items: readonly StreamItem[], event: StreamEvent): readonly StreamItem[] {
  switch (event.type) {
    case 'text-delta': {
      const last = items.at(-1);
      if (last?.kind === 'text')
        return [...items.slice(0, -1), { kind: 'text', text: last.text + event.text }];
      return [...items, { kind: 'text', text: event.text }];
    }
    case 'tool-call':
      return [
        ...items,
        {
          kind: 'tool',
          callId: event.callId,
          name: event.toolName,
          input: event.input,
          ...(event.path === undefined ? {} : { path: event.path }),
        },
      ];
    case 'tool-result':
      return items.map((item) =>
        item.kind === 'tool' && item.callId === event.callId
          ? { ...item, output: event.output, isError: event.isError }
          : item,
      );
    case 'compaction-start':
      return [
        ...items,
        {
          kind: 'note',
          tone: 'info',
          text: `Compacting the history (${plural(event.messages, 'message')}, ${formatCount(event.tokens)} tokens)…`,
        },
      ];
    case 'compaction-fallback':
      return [...items, { kind: 'note', tone: 'warning', text: event.reason }];
    case 'compaction-error':
      return [...items, { kind: 'note', tone: 'warning', text: `Compaction failed: ${event.message}` }];
    case 'error':
      return [...items, { kind: 'note', tone: 'error', text: event.message }];
    default:
      return items;
  }
}

/**
 * One conversation (WEB-1..5): toolbar with the gauge and "Summarize conversation history",
 * the auto-compaction notice, the summary on top, the active context, the streaming answer and
 * the message box. Every turn runs on the server's agent and streams back as events.
 */
export function ChatView({
  sessionId,
  listed,
  notifications,
  requestedDialog,
  onDialogOpened,
  onSessionChanged,
}: ChatViewProps) {
  const [view, setView] = useState<SessionView | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | undefined>(undefined);
  const [turn, setTurn] = useState<Turn | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [dialog, setDialog] = useState<CompactionDialogMode | undefined>(undefined);
  const controller = useRef<AbortController | undefined>(undefined);
  const bottom = useRef<HTMLDivElement>(null);

  const reload = useCallback(async () => {
    try {
      const next = await api<SessionView>(sessionPath(sessionId));
      setView(next);
      setLoadError(undefined);
      onSessionChanged(next.session);
    } catch (error) {
      setLoadError((error as Error).message);
    }
  }, [sessionId, onSessionChanged]);

  useEffect(() => {
    setView(undefined);
    setTurn(undefined);
    setNotice(undefined);
    void reload();
    return () => controller.current?.abort();
  }, [reload]);

  useEffect(() => {
    if (requestedDialog !== undefined && view !== undefined) {
      setDialog(requestedDialog);
      onDialogOpened();
    }
  }, [requestedDialog, view, onDialogOpened]);

  useEffect(() => {
    bottom.current?.scrollIntoView({ block: 'end' });
  }, [turn, view]);

  const setGauge = useCallback(
    (gauge: Gauge) => setView((current) => (current === undefined ? current : { ...current, gauge })),
    [],
  );

  const send = async (text: string): Promise<void> => {
    const abort = new AbortController();
    controller.current = abort;
    setBusy(true);
    setTurn({ user: text, items: [] });
    try {
      for await (const event of streamEvents(sessionPath(sessionId, '/turns'), { text }, abort.signal)) {
        if (event.type === 'gauge') setGauge(event.gauge);
        if (
          event.type === 'compaction-end' &&
          event.result.compacted &&
          event.result.trigger !== 'manual' &&
          notifications
        ) {
          // WEB-3, FR-1.6.2: messages summarized and the new token count.
          setNotice(
            `History summarized automatically: ${plural(event.result.messagesSummarized ?? 0, 'message')} now in the summary; context ${formatCount(event.result.tokensBefore)} → ${formatCount(event.result.tokensAfter)} tokens.`,
          );
        }
        setTurn((current) =>
          current === undefined ? current : { ...current, items: applyEvent(current.items, event) },
        );
      }
    } catch (error) {
      if (!abort.signal.aborted) {
        setTurn((current) =>
          current === undefined
            ? current
            : {
                ...current,
                items: applyEvent(current.items, { type: 'error', message: (error as Error).message }),
              },
        );
      }
    } finally {
      controller.current = undefined;
      setBusy(false);
    }
    await reload();
    // Keep the streamed turn on screen only when it failed (its error note is not stored).
    setTurn((current) =>
      current?.items.some((item) => item.kind === 'note' && item.tone === 'error') ? current : undefined,
    );
  };

  if (loadError !== undefined && view === undefined) {
    return (
      <section class="page" aria-label="Chat">
        <p role="alert" class="error">
          Could not open this chat: {loadError}
        </p>
      </section>
    );
  }
  if (view === undefined) {
    return (
      <section class="page" aria-label="Chat" aria-busy="true">
        <p class="muted">Loading…</p>
      </section>
    );
  }
  const { session, gauge, summary, messages, olderInContext } = view;
  return (
    <section class="chat" aria-labelledby="chat-title">
      <header class="toolbar">
        <h1 id="chat-title" class="chat-title">
          {listed?.title ?? session.title}
        </h1>
        <ContextGauge gauge={gauge} />
        <div class="toolbar-actions">
          <button type="button" class="secondary" onClick={() => setDialog('summarize')} disabled={busy}>
            Summarize conversation history
          </button>
          <a class="button secondary" href={href({ page: 'history', sessionId })}>
            View full history
          </a>
        </div>
      </header>
      <CompactionNotice text={notice} onDismiss={() => setNotice(undefined)} />
      <section class="messages" aria-label="Conversation">
        {summary !== undefined && (
          <SummaryPanel summary={summary} busy={busy} onRegenerate={() => setDialog('regenerate')} />
        )}
        {olderInContext > 0 && (
          <p class="muted older">
            {plural(olderInContext, 'earlier message')} not shown here —{' '}
            <a href={href({ page: 'history', sessionId })}>view full history</a>.
          </p>
        )}
        {messages.length === 0 && turn === undefined && summary === undefined && (
          <p class="muted empty">No messages yet. Say hello below.</p>
        )}
        {messages.map((message) => (
          <MessageView key={message.id} message={message} />
        ))}
        {turn !== undefined && <StreamingTurn user={turn.user} items={turn.items} busy={busy} />}
        <div ref={bottom} />
      </section>
      <Composer busy={busy} onSend={(text) => void send(text)} onStop={() => controller.current?.abort()} />
      {dialog !== undefined && (
        <CompactionDialog
          sessionId={sessionId}
          mode={dialog}
          {...(summary === undefined ? {} : { summarized: summary.messagesCovered })}
          onClose={() => setDialog(undefined)}
          onChanged={() => void reload()}
          onGauge={setGauge}
        />
      )}
    </section>
  );
}
