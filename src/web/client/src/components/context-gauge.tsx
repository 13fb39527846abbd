import { useState } from 'preact/hooks';
import type { Gauge } from '../../../api-types.ts';
import { formatCount, formatPercent } from '../format.ts';

const ACCURACY: Record<Gauge['accuracy'], string> = {
  exact: 'exact count',
  calibrated: 'calibrated estimate',
  approximate: 'approximate estimate',
};

/**
 * The context gauge (WEB-2, FR-6.1.1): a `meter` named "Context usage" with the tokens of the
 * next prompt against the message budget; orange from 80 %, red from 95 %. Hovering or
 * pressing "Details" shows the breakdown of the whole window.
 */
export function ContextGauge({ gauge }: { readonly gauge: Gauge }) {
  // Hovering shows the breakdown (CSS); "Details" pins it open for keyboard and touch users.
  const [pinned, setPinned] = useState(false);
  const summary = `${formatCount(gauge.tokens)} of ${formatCount(gauge.budget)} tokens (${formatPercent(gauge.percent)})`;
  return (
    <div class={`gauge gauge-${gauge.level}`} data-level={gauge.level}>
      {/* A styled role="meter": the native <meter> cannot show our three colours reliably. */}
      {/* biome-ignore lint/a11y/useSemanticElements: ARIA meter on purpose (see above) */}
      <div
        class="gauge-track"
        role="meter"
        aria-label="Context usage"
        aria-valuemin={0}
        aria-valuemax={gauge.budget}
        aria-valuenow={Math.min(gauge.tokens, gauge.budget)}
        aria-valuetext={summary}
      >
        <div class="gauge-fill" style={{ width: `${Math.min(100, gauge.percent)}%` }} />
      </div>
      <span class="gauge-text">
        {formatCount(gauge.tokens)} / {formatCount(gauge.budget)} tokens ·{' '}
        <strong>{formatPercent(gauge.percent)}</strong>
      </span>
      <button
        type="button"
        class="link-button"
        aria-expanded={pinned}
        aria-controls="gauge-breakdown"
        onClick={() => setPinned(!pinned)}
      >
        Details
      </button>
      <section
        id="gauge-breakdown"
        class={pinned ? 'gauge-breakdown open' : 'gauge-breakdown'}
        aria-label="Context usage breakdown"
      >
        <table>
          <caption>
            Context window: {formatCount(gauge.window)} tokens ({ACCURACY[gauge.accuracy]}, {gauge.tokenizer})
          </caption>
          <tbody>
            {gauge.breakdown.map((item) => (
              <tr key={item.key} data-key={item.key}>
                <th scope="row">
                  <span class={`swatch swatch-${item.key}`} aria-hidden="true" />
                  {item.label}
                </th>
                <td>{formatCount(item.tokens)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p class="muted">
          {formatCount(gauge.messagesInHistory)} messages in history, {formatCount(gauge.messagesSummarized)}{' '}
          summarized.
          {gauge.willCompactNextTurn ? ' The next message will compact the history.' : ''}
          {!gauge.willCompactNextTurn && gauge.autoCompactionResumesAt !== undefined
            ? ` The last compaction did not help: automatic compaction waits until message ${formatCount(gauge.autoCompactionResumesAt)} (a prompt that does not fit is still compacted).`
            : ''}
        </p>
      </section>
    </div>
  );
}
