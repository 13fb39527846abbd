import type { SessionStatus } from '../../session/types.ts';
import type { BreakdownItem, Gauge } from '../api-types.ts';

/** The gauge turns orange at this share of the budget (FR-6.1.1). */
export const GAUGE_WARNING_PERCENT = 80;
/** …and red at this one (FR-6.1.1, FR-1.2.2). */
export const GAUGE_CRITICAL_PERCENT = 95;

/** `ok` below 80 %, `warning` from 80 %, `critical` from 95 % (FR-6.1.1). */
export function gaugeLevel(percent: number): Gauge['level'] {
  if (percent >= GAUGE_CRITICAL_PERCENT) return 'critical';
  if (percent >= GAUGE_WARNING_PERCENT) return 'warning';
  return 'ok';
}

/**
 * The context gauge (WEB-2) from the session's status: tokens of the next prompt against the
 * message budget, and the session's breakdown of the whole window — system prompt, tool
 * definitions, summary, messages, reserved output, safety margin, free (they add up to the
 * window). Computed by the session from its projection, so it is right right after a
 * compaction and after a reload.
 */
export function toGauge(status: SessionStatus): Gauge {
  const { breakdown } = status;
  const items: BreakdownItem[] = [
    { key: 'system', label: 'System prompt', tokens: breakdown.systemPrompt },
    { key: 'tools', label: 'Tool definitions', tokens: breakdown.tools },
    { key: 'summary', label: 'Summary', tokens: breakdown.summary },
    { key: 'messages', label: 'Messages', tokens: breakdown.messages },
    { key: 'reserved', label: 'Reserved output', tokens: breakdown.reservedOutput },
    { key: 'margin', label: 'Safety margin', tokens: breakdown.safetyMargin },
    { key: 'free', label: 'Free', tokens: breakdown.free },
  ];
  // The meter's own fraction (messages against their budget), so the number, the bar and the
  // colour always agree, whatever share of the window the policy's triggers compare.
  const percent = status.budget > 0 ? Math.round((status.tokens / status.budget) * 1000) / 10 : 0;
  return {
    tokens: status.tokens,
    budget: status.budget,
    window: status.window,
    percent,
    level: gaugeLevel(percent),
    accuracy: status.accuracy,
    tokenizer: status.tokenizer,
    breakdown: items,
    messagesInHistory: status.messagesInHistory,
    messagesSummarized: status.messagesSummarized,
    willCompactNextTurn: status.willCompactNextTurn,
    ...(status.autoCompactionResumesAt === undefined
      ? {}
      : { autoCompactionResumesAt: status.autoCompactionResumesAt }),
    // A message larger than what the budget leaves beside the system prompt and the summary
    // cannot be sent whole: the final fit clips it (FR-5.3.1).
    maxMessageTokens: Math.max(1, status.budget - breakdown.systemPrompt - breakdown.summary),
  };
}
