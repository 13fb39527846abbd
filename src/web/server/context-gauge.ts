import type { Budget } from '../../policy/budget.ts';
import type { SessionStatus } from '../../session/types.ts';
import type { BreakdownItem, Gauge } from '../api-types.ts';

/** The gauge turns orange at this share of the budget (FR-6.1.1). */
export const GAUGE_WARNING_PERCENT = 80;
/** …and red at this one (FR-6.1.1, FR-1.2.2). */
export const GAUGE_CRITICAL_PERCENT = 95;

/** What the gauge shows besides `status()`: parts the status does not itemise. */
export interface GaugeParts {
  /** Tokens of the system messages in the prompt. */
  readonly systemTokens: number;
  /** The budget's parts, when known (reserve, margin, tool definitions). */
  readonly budget?: Pick<Budget, 'responseReserve' | 'safetyMargin' | 'toolTokens'>;
}

/** `ok` below 80 %, `warning` from 80 %, `critical` from 95 % (FR-6.1.1). */
export function gaugeLevel(percent: number): Gauge['level'] {
  if (percent >= GAUGE_CRITICAL_PERCENT) return 'critical';
  if (percent >= GAUGE_WARNING_PERCENT) return 'warning';
  return 'ok';
}

/**
 * The context gauge (WEB-2) from the session's status: tokens against the message budget, and
 * the breakdown of the whole window — system prompt, tool definitions, summary, messages,
 * reserved output, safety margin, free. Prompt parts add up to `tokens`; all parts add up to
 * the window.
 */
export function toGauge(status: SessionStatus, parts: GaugeParts): Gauge {
  const summary = Math.min(status.summary?.tokens ?? 0, status.tokens);
  const system = Math.min(parts.systemTokens, status.tokens - summary);
  const messages = Math.max(0, status.tokens - summary - system);
  const outside = Math.max(0, status.window - status.budget);
  const tools = parts.budget?.toolTokens ?? 0;
  const margin = parts.budget?.safetyMargin;
  const reserved = parts.budget?.responseReserve ?? Math.max(0, outside - tools);
  const breakdown: BreakdownItem[] = [
    { key: 'system', label: 'System prompt', tokens: system },
    { key: 'tools', label: 'Tool definitions', tokens: tools },
    { key: 'summary', label: 'Summary', tokens: summary },
    { key: 'messages', label: 'Messages', tokens: messages },
    {
      key: 'reserved',
      label: margin === undefined ? 'Reserved output and safety margin' : 'Reserved output',
      tokens: reserved,
    },
    ...(margin === undefined ? [] : [{ key: 'margin' as const, label: 'Safety margin', tokens: margin }]),
    { key: 'free', label: 'Free', tokens: Math.max(0, status.budget - status.tokens) },
  ];
  return {
    tokens: status.tokens,
    budget: status.budget,
    window: status.window,
    percent: status.percent,
    level: gaugeLevel(status.percent),
    accuracy: status.accuracy,
    tokenizer: status.tokenizer,
    breakdown,
    messagesInHistory: status.messagesInHistory,
    messagesSummarized: status.messagesSummarized,
    willCompactNextTurn: status.willCompactNextTurn,
  };
}
