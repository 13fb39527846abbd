import { useState } from 'preact/hooks';
import type { WireSummary } from '../../../api-types.ts';
import { formatCount, formatTime, plural } from '../format.ts';
import { Dialog } from './dialog.tsx';
import { MarkdownText } from './markdown-text.tsx';

const MODE_LABEL: Record<WireSummary['mode'], string> = {
  auto: 'automatic',
  manual: 'manual',
  overflow: 'after a context overflow',
};

/** Props of {@link SummaryPanel}. */
export interface SummaryPanelProps {
  readonly summary: WireSummary;
  readonly onRegenerate: () => void;
  readonly busy: boolean;
}

/**
 * The summary at the top of the conversation (WEB-4, FR-6.1.2, FR-6.2): visually distinct,
 * collapsible, a badge with how many messages it covers, "View summary" in full and
 * "Regenerate summary".
 */
export function SummaryPanel({ summary, onRegenerate, busy }: SummaryPanelProps) {
  const [expanded, setExpanded] = useState(false);
  const [viewing, setViewing] = useState(false);
  return (
    <section class="summary-panel" aria-labelledby="summary-panel-title">
      <div class="summary-head">
        <h2 id="summary-panel-title" class="summary-title">
          <button
            type="button"
            class="disclosure"
            aria-expanded={expanded}
            aria-controls="summary-panel-body"
            onClick={() => setExpanded(!expanded)}
          >
            Summary of earlier messages
          </button>
        </h2>
        <span class="badge" title="Messages of the original history this summary stands for">
          {plural(summary.messagesCovered, 'message')} summarized
        </span>
        <span class="summary-actions">
          <button type="button" class="secondary" onClick={() => setViewing(true)}>
            View summary
          </button>
          <button type="button" class="secondary" onClick={onRegenerate} disabled={busy}>
            Regenerate summary
          </button>
        </span>
      </div>
      {expanded && (
        <div id="summary-panel-body" class="summary-body">
          <MarkdownText text={summary.text} />
        </div>
      )}
      {viewing && (
        <Dialog title="Conversation summary" onClose={() => setViewing(false)} wide>
          <p class="muted">
            {plural(summary.messagesCovered, 'message')} summarized · {formatCount(summary.tokens)} tokens ·{' '}
            {MODE_LABEL[summary.mode]} · {formatTime(summary.createdAt)}
          </p>
          <div class="summary-full">
            <MarkdownText text={summary.text} />
          </div>
          <div class="dialog-buttons">
            <button type="button" onClick={() => setViewing(false)}>
              Close
            </button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
