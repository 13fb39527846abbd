import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { CompactionPreview, Gauge, WireCompactionResult } from '../../../api-types.ts';
import { api, sessionPath, streamEvents } from '../api.ts';
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
  readonly onClose: () => void;
  /** The history changed (or may have): reload the chat. */
  readonly onChanged: () => void;
  readonly onGauge: (gauge: Gauge) => void;
}

type Phase =
  | { readonly step: 'loading' }
  | { readonly step: 'confirm'; readonly preview?: CompactionPreview }
  | { readonly step: 'running'; readonly text: string; readonly fallback?: string }
  | { readonly step: 'result'; readonly result: WireCompactionResult; readonly fallback?: string }
  | { readonly step: 'cancelled' }
  | { readonly step: 'error'; readonly message: string };

/** Summary characters the result shows (FR-2.4.3). */
const PREVIEW_CHARS = 200;

/**
 * The manual summarize flow (WEB-5, FR-2.1–2.4) and "Regenerate summary" (WEB-4) in one
 * `role="dialog"`: a confirmation with the engine's dry-run numbers (total messages, messages
 * to summarize, estimated new token count) and an optional instruction, Cancel; then a
 * progress indicator with the summary as it streams; then the result with a 200-character
 * preview and tokens saved; on failure the error with Retry, the history untouched.
 */
export function CompactionDialog({
  sessionId,
  mode,
  summarized,
  onClose,
  onChanged,
  onGauge,
}: CompactionDialogProps) {
  const [phase, setPhase] = useState<Phase>(mode === 'summarize' ? { step: 'loading' } : { step: 'confirm' });
  const [instructions, setInstructions] = useState('');
  const running = useRef<AbortController | undefined>(undefined);
  const title = mode === 'summarize' ? 'Summarize conversation history' : 'Regenerate summary';

  useEffect(() => {
    if (mode !== 'summarize') return undefined;
    const controller = new AbortController();
    api<CompactionPreview>(sessionPath(sessionId, '/compactions/preview'), {
      method: 'POST',
      body: {},
      signal: controller.signal,
    }).then(
      (preview) => setPhase({ step: 'confirm', preview }),
      (error: Error) => {
        if (!controller.signal.aborted) setPhase({ step: 'error', message: error.message });
      },
    );
    return () => controller.abort();
  }, [sessionId, mode]);

  useEffect(() => () => running.current?.abort(), []);

  const run = useCallback(async () => {
    const controller = new AbortController();
    running.current = controller;
    let text = '';
    let fallback: string | undefined;
    let result: WireCompactionResult | undefined;
    let failure: string | undefined;
    setPhase({ step: 'running', text });
    const path = sessionPath(sessionId, mode === 'summarize' ? '/compactions' : '/compactions/regenerate');
    const body = instructions.trim() === '' ? {} : { instructions: instructions.trim() };
    try {
      for await (const event of streamEvents(path, body, controller.signal)) {
        if (event.type === 'compaction-progress') {
          text += event.text;
          setPhase({ step: 'running', text, ...(fallback === undefined ? {} : { fallback }) });
        } else if (event.type === 'compaction-fallback') {
          fallback = event.reason;
          setPhase({ step: 'running', text, fallback });
        } else if (event.type === 'compaction-end') {
          result = event.result;
        } else if (event.type === 'compaction-error' || event.type === 'error') {
          failure = event.message;
        } else if (event.type === 'gauge') {
          onGauge(event.gauge);
        } else if (event.type === 'done' && event.reason === 'aborted') {
          failure ??= 'the summary was stopped';
        }
      }
    } catch (error) {
      if (controller.signal.aborted) {
        setPhase({ step: 'cancelled' });
        onChanged();
        return;
      }
      failure = (error as Error).message;
    } finally {
      running.current = undefined;
    }
    if (failure !== undefined || result === undefined) {
      setPhase({ step: 'error', message: failure ?? 'the server ended the stream without a result' });
    } else {
      setPhase({ step: 'result', result, ...(fallback === undefined ? {} : { fallback }) });
    }
    onChanged();
  }, [sessionId, mode, instructions, onChanged, onGauge]);

  const stop = (): void => running.current?.abort();

  return (
    <Dialog title={title} onClose={phase.step === 'running' ? stop : onClose}>
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
            <span>Summarizing…</span>
          </p>
          {phase.fallback !== undefined && <p class="warning">{phase.fallback}</p>}
          <section aria-label="Summary so far" class="streaming-summary">
            {phase.text === '' ? <p class="muted">Waiting for the summarizer…</p> : <pre>{phase.text}</pre>}
          </section>
          <div class="dialog-buttons">
            <button type="button" class="secondary" onClick={stop}>
              Stop
            </button>
          </div>
        </div>
      )}
      {phase.step === 'result' && (
        <ResultFacts result={phase.result} fallback={phase.fallback} onClose={onClose} />
      )}
      {phase.step === 'cancelled' && (
        <div class="stack">
          <p>Stopped. The history is unchanged.</p>
          <CloseButton onClose={onClose} />
        </div>
      )}
      {phase.step === 'error' && (
        <div class="stack">
          <p role="alert" class="error">
            Summarizing failed: {phase.message}. The history is unchanged; you can keep chatting.
          </p>
          <div class="dialog-buttons">
            <button type="button" class="secondary" onClick={onClose}>
              Close
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

function CloseButton({ onClose }: { readonly onClose: () => void }) {
  return (
    <div class="dialog-buttons">
      <button type="button" onClick={onClose}>
        Close
      </button>
    </div>
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

function ResultFacts({
  result,
  fallback,
  onClose,
}: {
  readonly result: WireCompactionResult;
  readonly fallback: string | undefined;
  readonly onClose: () => void;
}) {
  const saved = result.tokensBefore - result.tokensAfter;
  return (
    <div class="stack">
      {result.compacted ? (
        <p role="status">
          Done: {plural(result.messagesSummarized ?? 0, 'message')} summarized in{' '}
          {formatDuration(result.durationMs)}. Context {formatCount(result.tokensBefore)} →{' '}
          {formatCount(result.tokensAfter)} tokens (<strong>{formatCount(saved)} tokens saved</strong>).
        </p>
      ) : (
        <p role="status">Nothing was summarized: {result.reason}.</p>
      )}
      {fallback !== undefined && <p class="warning">{fallback}</p>}
      {result.summaryPreview !== undefined && (
        <figure class="summary-preview">
          <figcaption>Summary preview</figcaption>
          <blockquote>
            {result.summaryPreview}
            {result.summaryPreview.length >= PREVIEW_CHARS ? '…' : ''}
          </blockquote>
        </figure>
      )}
      <CloseButton onClose={onClose} />
    </div>
  );
}
