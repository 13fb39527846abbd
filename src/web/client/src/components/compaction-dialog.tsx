import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ApiErrorCode, CompactionPreview, Gauge, WireCompactionResult } from '../../../api-types.ts';
import { call, stopRun, streamRoute } from '../api.ts';
import { formatCount, formatDuration, plural } from '../format.ts';
import { Dialog } from './dialog.tsx';

/** Which flow the dialog runs: "Summarize conversation history" or "Regenerate summary". */
export type CompactionDialogMode = 'summarize' | 'regenerate';

/** Props of {@link CompactionDialog}. */
export interface CompactionDialogProps {
  readonly sessionId: string;
  readonly mode: CompactionDialogMode;
  /** Messages the current summary covers (regenerate's confirmation). */
  readonly summarized?: number;
  /** The gauge's tokens when the dialog opened: the result's "before". */
  readonly tokensNow: number;
  readonly onClose: () => void;
  /** "Continue without summarizing" after a failure: close and go back to the message box. */
  readonly onContinue: () => void;
  /** A summary was written: reload the chat (and drop a stale auto-compaction notice). */
  readonly onChanged: () => void;
  readonly onGauge: (gauge: Gauge) => void;
}

/** What the run ended with; the numbers are the gauge's, before and after (one source). */
interface Outcome {
  readonly result: WireCompactionResult;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
}

type Phase =
  | { readonly step: 'loading' }
  | { readonly step: 'confirm'; readonly preview?: CompactionPreview }
  | { readonly step: 'running'; readonly text: string; readonly stopping: boolean }
  | { readonly step: 'result'; readonly outcome: Outcome }
  | { readonly step: 'cancelled' }
  | { readonly step: 'error'; readonly code: ApiErrorCode | 'E_HTTP' | undefined; readonly message: string };

/** Summary characters the result shows (FR-2.4.3). */
const PREVIEW_CHARS = 200;

/** The error line for a failure code (the server's message says the rest). */
const FAILURE_TITLE: Partial<Record<ApiErrorCode | 'E_HTTP', string>> = {
  E_SUMMARY_TIMEOUT: 'The summarizer took too long',
  E_SUMMARY_TOO_LONG: 'The summarizer wrote far more than a summary',
  E_SUMMARY_FAILED: 'The summarizer failed',
  E_BUSY: 'This chat is busy',
};

/**
 * The manual summarize flow (WEB-5, FR-2.1–2.4) and "Regenerate summary" (WEB-4) in one
 * `role="dialog"`: a confirmation with the engine's dry-run numbers and an optional
 * instruction; then a progress indicator with the summary as it streams and Cancel, which
 * stops the request on the server; then the result with a 200-character preview and the
 * gauge's before → after. A failure (FR-5.1.2) is never shown as "Done": the error with Retry
 * and "Continue without summarizing", the history untouched.
 */
export function CompactionDialog({
  sessionId,
  mode,
  summarized,
  tokensNow,
  onClose,
  onContinue,
  onChanged,
  onGauge,
}: CompactionDialogProps) {
  const [phase, setPhase] = useState<Phase>(mode === 'summarize' ? { step: 'loading' } : { step: 'confirm' });
  const [instructions, setInstructions] = useState('');
  // FR-2.2.2: keep the newest N tokens verbatim this time (empty: the policy's "all messages").
  const [retention, setRetention] = useState('');
  const retentionTokens = /^\d+$/.test(retention.trim()) ? Number(retention.trim()) : undefined;
  const running = useRef<AbortController | undefined>(undefined);
  const title = mode === 'summarize' ? 'Summarize conversation history' : 'Regenerate summary';

  useEffect(() => {
    if (mode !== 'summarize') return undefined;
    const controller = new AbortController();
    call('POST /api/sessions/:id/compactions/preview', {
      id: sessionId,
      body: retentionTokens === undefined ? {} : { retentionTokens },
      signal: controller.signal,
    }).then(
      (preview) => setPhase({ step: 'confirm', preview }),
      (error: Error & { code?: ApiErrorCode | 'E_HTTP' }) => {
        if (!controller.signal.aborted) setPhase({ step: 'error', code: error.code, message: error.message });
      },
    );
    return () => controller.abort();
  }, [sessionId, mode, retentionTokens]);

  // Closing the page mid-summary closes the stream, which stops the request too.
  useEffect(() => () => running.current?.abort(), []);

  const run = useCallback(async () => {
    const controller = new AbortController();
    running.current = controller;
    let text = '';
    let result: WireCompactionResult | undefined;
    let failure: { code: ApiErrorCode | 'E_HTTP' | undefined; message: string } | undefined;
    let aborted = false;
    let tokensAfter: number | undefined;
    setPhase({ step: 'running', text, stopping: false });
    const route =
      mode === 'summarize'
        ? 'POST /api/sessions/:id/compactions'
        : 'POST /api/sessions/:id/compactions/regenerate';
    const body = {
      ...(instructions.trim() === '' ? {} : { instructions: instructions.trim() }),
      ...(mode === 'summarize' && retentionTokens !== undefined ? { retentionTokens } : {}),
    };
    try {
      for await (const event of streamRoute(route, sessionId, body, controller.signal)) {
        if (event.type === 'compaction-progress') {
          text += event.text;
          setPhase((current) =>
            current.step === 'running' ? { ...current, text } : { step: 'running', text, stopping: false },
          );
        } else if (event.type === 'compaction-end') {
          result = event.result;
        } else if (event.type === 'error' || event.type === 'compaction-error') {
          failure ??= { code: event.type === 'error' ? event.code : undefined, message: event.message };
        } else if (event.type === 'gauge') {
          tokensAfter = event.gauge.tokens;
          onGauge(event.gauge);
        } else if (event.type === 'done' && event.reason === 'aborted') {
          aborted = true;
        }
      }
    } catch (error) {
      if (controller.signal.aborted) aborted = true;
      else
        failure ??= {
          code: (error as { code?: ApiErrorCode | 'E_HTTP' }).code,
          message: (error as Error).message,
        };
    } finally {
      running.current = undefined;
    }
    if (failure !== undefined) {
      setPhase({ step: 'error', ...failure });
    } else if (aborted) {
      setPhase({ step: 'cancelled' });
    } else if (result === undefined) {
      setPhase({ step: 'error', code: undefined, message: 'the server ended the stream without a result' });
    } else {
      setPhase({
        step: 'result',
        outcome: { result, tokensBefore: tokensNow, tokensAfter: tokensAfter ?? result.tokensAfter },
      });
      if (result.compacted) onChanged();
    }
  }, [sessionId, mode, instructions, retentionTokens, tokensNow, onChanged, onGauge]);

  /** Cancel while running: the server stops the summary request; the stream then ends. */
  const cancel = (): void => {
    setPhase((current) => (current.step === 'running' ? { ...current, stopping: true } : current));
    stopRun(sessionId).then(
      (stopped) => {
        if (!stopped) running.current?.abort();
      },
      () => running.current?.abort(),
    );
  };

  return (
    <Dialog title={title} onClose={phase.step === 'running' ? cancel : onClose}>
      {phase.step === 'loading' && (
        <p class="progress-line muted">
          <progress aria-label="Loading the preview" />
          Working out what would be summarized…
        </p>
      )}
      {phase.step === 'confirm' && (
        <form
          class="stack"
          onSubmit={(event) => {
            event.preventDefault();
            void run();
          }}
        >
          {mode === 'summarize' && phase.preview !== undefined ? (
            <PreviewFacts preview={phase.preview} />
          ) : (
            <p>
              A new summary will be written from the original messages
              {summarized === undefined ? '' : ` (${plural(summarized, 'message')} summarized now)`}, not from
              the current summary. It replaces the current one; no message is deleted.
            </p>
          )}
          {mode === 'summarize' && (
            <label class="field">
              <span>Keep the newest tokens verbatim (optional; empty summarizes all messages)</span>
              <input
                type="number"
                min={0}
                step={100}
                inputMode="numeric"
                placeholder="e.g. 1000"
                value={retention}
                onInput={(event) => setRetention((event.target as HTMLInputElement).value)}
              />
            </label>
          )}
          <label class="field">
            <span>Custom instruction (optional)</span>
            <textarea
              rows={3}
              maxLength={4000}
              placeholder="e.g. Keep every decision about the database schema"
              value={instructions}
              onInput={(event) => setInstructions((event.target as HTMLTextAreaElement).value)}
            />
          </label>
          <div class="dialog-buttons">
            <button type="button" class="secondary" onClick={onClose}>
              Cancel
            </button>
            <button type="submit">{mode === 'summarize' ? 'Summarize' : 'Regenerate'}</button>
          </div>
        </form>
      )}
      {phase.step === 'running' && (
        <div class="stack">
          <p class="progress-line">
            <progress aria-label="Summarizing" />
            <span>{phase.stopping ? 'Cancelling…' : 'Summarizing…'}</span>
          </p>
          <section aria-label="Summary so far" class="streaming-summary">
            {phase.text === '' ? <p class="muted">Waiting for the summarizer…</p> : <pre>{phase.text}</pre>}
          </section>
          <div class="dialog-buttons">
            <button type="button" class="secondary" onClick={cancel} disabled={phase.stopping}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {phase.step === 'result' && <ResultFacts outcome={phase.outcome} onClose={onClose} />}
      {phase.step === 'cancelled' && (
        <div class="stack">
          <p role="status">Cancelled. The summary request was stopped; the history is unchanged.</p>
          <div class="dialog-buttons">
            <button type="button" onClick={onClose}>
              Close
            </button>
          </div>
        </div>
      )}
      {phase.step === 'error' && (
        <div class="stack">
          <div role="alert" class="error-box">
            <p>
              <strong>Summarizing failed.</strong>{' '}
              {(phase.code === undefined ? undefined : FAILURE_TITLE[phase.code]) ?? 'Something went wrong'}:{' '}
              {phase.message}.
            </p>
            <p>Nothing was summarized and the history is unchanged; you can keep chatting.</p>
          </div>
          <div class="dialog-buttons">
            <button type="button" class="secondary" onClick={onContinue}>
              Continue without summarizing
            </button>
            <button type="button" onClick={() => void run()}>
              Retry
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}

function PreviewFacts({ preview }: { readonly preview: CompactionPreview }) {
  return (
    <>
      <dl class="facts">
        <dt>Messages in this conversation</dt>
        <dd data-fact="total">{formatCount(preview.totalMessages)}</dd>
        <dt>Messages to summarize</dt>
        <dd data-fact="to-summarize">{formatCount(preview.messagesToSummarize)}</dd>
        <dt>Context now</dt>
        <dd data-fact="tokens-before">{formatCount(preview.tokensBefore)} tokens</dd>
        <dt>Estimated after</dt>
        <dd data-fact="tokens-after">{formatCount(preview.estimatedTokensAfter)} tokens</dd>
      </dl>
      {preview.warning !== undefined && <p class="warning">{preview.warning}</p>}
    </>
  );
}

const SOURCE_NOTE: Record<NonNullable<WireCompactionResult['summarySource']>, string | undefined> = {
  llm: undefined,
  custom: 'The summary text came from a hook, not from the model.',
  extractive: 'No model wrote this summary: it quotes the messages.',
};

function ResultFacts({ outcome, onClose }: { readonly outcome: Outcome; readonly onClose: () => void }) {
  const { result, tokensBefore, tokensAfter } = outcome;
  const saved = tokensBefore - tokensAfter;
  const added = result.messagesAdded ?? result.messagesSummarized ?? 0;
  const note = result.summarySource === undefined ? undefined : SOURCE_NOTE[result.summarySource];
  return (
    <div class="stack">
      {result.compacted ? (
        <p role="status">
          Done: {plural(added, 'message')} summarized in {formatDuration(result.durationMs)}
          {result.messagesSummarized !== undefined && result.messagesSummarized !== added
            ? ` (the summary now stands for ${plural(result.messagesSummarized, 'message')})`
            : ''}
          . Context {formatCount(tokensBefore)} → {formatCount(tokensAfter)} tokens (
          <strong>
            {saved >= 0 ? `${formatCount(saved)} tokens saved` : `${formatCount(-saved)} tokens more`}
          </strong>
          ).
        </p>
      ) : (
        <p role="status">Nothing was summarized: {result.reason}.</p>
      )}
      {note !== undefined && <p class="warning">{note}</p>}
      {result.summaryPreview !== undefined && (
        <figure class="summary-preview">
          <figcaption>Summary preview</figcaption>
          <blockquote>
            {result.summaryPreview}
            {result.summaryPreview.length >= PREVIEW_CHARS ? '…' : ''}
          </blockquote>
        </figure>
      )}
      <div class="dialog-buttons">
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </div>
  );
}
