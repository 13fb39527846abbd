import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { WireCompactionResult, WireMessage, WireSession } from '../../../api-types.ts';
import { autoCompactionNotice, plural } from '../format.ts';
import { useSessionView } from '../hooks/use-session-view.ts';
import { useTurn } from '../hooks/use-turn.ts';
import { href } from '../router.ts';
import { ChatMenu } from './chat-menu.tsx';
import { CompactionDialog, type CompactionDialogMode } from './compaction-dialog.tsx';
import { CompactionNotice } from './compaction-notice.tsx';
import { Composer } from './composer.tsx';
import { ContextGauge } from './context-gauge.tsx';
import { CopyButton } from './copy-button.tsx';
import { MessageView, messageText } from './message-view.tsx';
import { StreamingTurn } from './streaming-turn.tsx';
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
  const { view, loadError, reload, setGauge } = useSessionView(sessionId, onSessionChanged);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [dialog, setDialog] = useState<CompactionDialogMode | undefined>(undefined);
  const [draft, setDraft] = useState('');
  const [focusKey, setFocusKey] = useState(0);
  const bottom = useRef<HTMLDivElement>(null);
  const onAutoCompaction = useCallback(
    (result: WireCompactionResult) => {
      // WEB-3, FR-1.6.2: messages summarized and the new token count.
      if (notifications) setNotice(autoCompactionNotice(result));
    },
    [notifications],
  );
  const { turn, busy, send, stop, abandon } = useTurn({
    sessionId,
    onGauge: setGauge,
    onAutoCompaction,
    onStored: reload,
  });

  // Another chat: no notice; leaving closes a running turn's stream.
  useEffect(() => {
    setNotice(undefined);
    return abandon;
  }, [sessionId, abandon]);

  useEffect(() => {
    if (requestedDialog !== undefined && view !== undefined) {
      setDialog(requestedDialog);
      onDialogOpened();
    }
  }, [requestedDialog, view, onDialogOpened]);

  useEffect(() => {
    bottom.current?.scrollIntoView({ block: 'end' });
  }, [turn, view]);

  // A first message typed on the start page.
  const initialSent = useRef(false);
  useEffect(() => {
    if (initialMessage === undefined || view === undefined || initialSent.current) return;
    initialSent.current = true;
    onInitialMessageTaken?.();
    void send(initialMessage);
  }, [initialMessage, view, send, onInitialMessageTaken]);

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
