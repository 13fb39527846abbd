import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { Gauge, SessionView, StreamEvent, WireMessage, WireSession } from '../../../api-types.ts';
import { api, sessionPath, stopRun, streamEvents } from '../api.ts';
import { formatCount, plural } from '../format.ts';
import { href } from '../router.ts';
import { ChatMenu } from './chat-menu.tsx';
import { CompactionDialog, type CompactionDialogMode } from './compaction-dialog.tsx';
import { CompactionNotice } from './compaction-notice.tsx';
import { Composer } from './composer.tsx';
import { ContextGauge } from './context-gauge.tsx';
import { CopyButton } from './copy-button.tsx';
import { MessageView, messageText } from './message-view.tsx';
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
  /** A message typed on the start page, sent as soon as the chat is open. */
  readonly initialMessage?: string;
  readonly onInitialMessageTaken?: () => void;
}

interface Turn {
  readonly user: string;
  readonly items: readonly StreamItem[];
  readonly stopped?: boolean;
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

/** The text of the user message right before `index` (what "Regenerate" sends again). */
function previousUserText(messages: readonly WireMessage[], index: number): string | undefined {
  for (let at = index - 1; at >= 0; at--) {
    const message = messages[at];
    if (message?.role === 'user') return messageText(message);
  }
  return undefined;
}

/**
 * One conversation (WEB-1..5): toolbar with the title, the gauge and the chat's menu
 * (summarize, regenerate the summary, full history); the auto-compaction notice; the summary
 * on top; the active context with copy / edit / regenerate on messages; the streaming answer;
 * the message box. Every turn runs on the server's agent and streams back as events.
 */
export function ChatView({
  sessionId,
  listed,
  notifications,
  requestedDialog,
  onDialogOpened,
  onSessionChanged,
  initialMessage,
  onInitialMessageTaken,
}: ChatViewProps) {
  const [view, setView] = useState<SessionView | undefined>(undefined);
  const [loadError, setLoadError] = useState<string | undefined>(undefined);
  const [turn, setTurn] = useState<Turn | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [dialog, setDialog] = useState<CompactionDialogMode | undefined>(undefined);
  const [draft, setDraft] = useState('');
  const [focusKey, setFocusKey] = useState(0);
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

  const send = useCallback(
    async (text: string): Promise<void> => {
      const abort = new AbortController();
      controller.current = abort;
      setBusy(true);
      setTurn({ user: text, items: [] });
      let stopped = false;
      try {
        for await (const event of streamEvents(sessionPath(sessionId, '/turns'), { text }, abort.signal)) {
          if (event.type === 'gauge') setGauge(event.gauge);
          if (event.type === 'done' && event.reason === 'aborted') stopped = true;
          if (
            event.type === 'compaction-end' &&
            event.result.compacted &&
            event.result.trigger !== 'manual' &&
            notifications
          ) {
            // WEB-3, FR-1.6.2: messages summarized and the new token count.
            setNotice(
              `History summarized automatically: ${plural(event.result.messagesAdded ?? event.result.messagesSummarized ?? 0, 'message')} added to the summary; context ${formatCount(event.result.tokensBefore)} → ${formatCount(event.result.tokensAfter)} tokens.`,
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
      if (stopped) setTurn((current) => (current === undefined ? current : { ...current, stopped: true }));
      // The stream ended after the server stored the turn (a stopped one too): the reload shows
      // it, then the streamed copy goes — unless it failed (its error note is not stored).
      await reload();
      setTurn((current) =>
        current?.items.some((item) => item.kind === 'note' && item.tone === 'error') ? current : undefined,
      );
    },
    [sessionId, notifications, reload, setGauge],
  );

  // A first message typed on the start page.
  const initialSent = useRef(false);
  useEffect(() => {
    if (initialMessage === undefined || view === undefined || initialSent.current) return;
    initialSent.current = true;
    onInitialMessageTaken?.();
    void send(initialMessage);
  }, [initialMessage, view, send, onInitialMessageTaken]);

  /** Stop: the server stops the turn and stores the partial answer; the stream then ends. */
  const stop = (): void => {
    stopRun(sessionId).then(
      (stopped) => {
        if (!stopped) controller.current?.abort();
      },
      () => controller.current?.abort(),
    );
  };

  const closeDialog = useCallback(() => setDialog(undefined), []);
  const summaryWritten = useCallback(() => {
    // A manual summary replaces what an earlier automatic notice said.
    setNotice(undefined);
    void reload();
  }, [reload]);

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
  const lastAssistant = messages.findLastIndex((message) => message.role === 'assistant');
  return (
    <section class="chat" aria-labelledby="chat-title">
      <header class="toolbar">
        <h1 id="chat-title" class="chat-title">
          {listed?.title ?? session.title}
        </h1>
        <ContextGauge gauge={gauge} />
        <ChatMenu
          sessionId={sessionId}
          busy={busy}
          hasSummary={summary !== undefined}
          onSummarize={() => setDialog('summarize')}
          onRegenerate={() => setDialog('regenerate')}
        />
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
        {messages.map((message, index) => {
          const text = messageText(message);
          const again = index === lastAssistant ? previousUserText(messages, index) : undefined;
          return (
            <MessageView
              key={message.id}
              message={message}
              actions={
                text === '' ? undefined : (
                  <>
                    <CopyButton text={text} label={`Copy message ${message.seq}`} />
                    {message.role === 'user' && (
                      <button
                        type="button"
                        class="icon-button message-action"
                        aria-label={`Edit message ${message.seq}`}
                        title="Put this message back in the box to change it"
                        disabled={busy}
                        onClick={() => {
                          setDraft(text);
                          setFocusKey((key) => key + 1);
                        }}
                      >
                        Edit
                      </button>
                    )}
                    {again !== undefined && (
                      <button
                        type="button"
                        class="icon-button message-action"
                        aria-label="Regenerate the answer"
                        disabled={busy}
                        onClick={() => void send(again)}
                      >
                        Regenerate
                      </button>
                    )}
                  </>
                )
              }
            />
          );
        })}
        {turn !== undefined && (
          <StreamingTurn user={turn.user} items={turn.items} busy={busy} stopped={turn.stopped === true} />
        )}
        <div ref={bottom} />
      </section>
      <Composer
        busy={busy}
        draft={draft}
        onDraft={setDraft}
        onSend={(text) => void send(text)}
        onStop={stop}
        maxMessageTokens={gauge.maxMessageTokens}
        autoFocus
        focusKey={focusKey}
      />
      {dialog !== undefined && (
        <CompactionDialog
          sessionId={sessionId}
          mode={dialog}
          tokensNow={gauge.tokens}
          {...(summary === undefined ? {} : { summarized: summary.messagesCovered })}
          onClose={closeDialog}
          onContinue={() => {
            closeDialog();
            setFocusKey((key) => key + 1);
          }}
          onChanged={summaryWritten}
          onGauge={setGauge}
        />
      )}
    </section>
  );
}
