import { DEFAULTS } from '../defaults.ts';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { CountAccuracy } from '../tokens/types.ts';

/** The output reserve never exceeds this share of the window when derived from the model's max output. */
export const MAX_RESERVE_SHARE = 0.25;
/** …nor this many tokens (models with 64k–128k max output rarely need that much per turn). */
export const MAX_DERIVED_RESERVE = 32_000;

/** Inputs of {@link computeBudget}. */
export interface BudgetOptions {
  /** The model's context window (max input tokens). */
  readonly window: number;
  /** The model's max output tokens, used when `responseReserve` is not set. */
  readonly maxOutputTokens?: number;
  /** Tokens kept free for the response. Default: max output capped at 25 % of the window and 32,000. */
  readonly responseReserve?: number;
  /** Safety margin as a share of the window; default depends on `accuracy`. */
  readonly safetyMargin?: number;
  /** How trustworthy the counts are; widens the default margin. Default `exact`. */
  readonly accuracy?: CountAccuracy;
  /** Tokens of the tool definitions sent with every request. */
  readonly toolTokens?: number;
}

/**
 * The token budget of one request (TRG-1). `messages` is what the message list may use;
 * every other field explains how it was derived, for reports and `status()`.
 */
export interface Budget {
  readonly window: number;
  readonly responseReserve: number;
  readonly safetyMargin: number;
  readonly toolTokens: number;
  /** Tokens the message list (system prompt included) may use. */
  readonly messages: number;
}

/**
 * Derives the message budget: window − response reserve − safety margin − tool definitions.
 * Throws `E_BUDGET_IMPOSSIBLE` when nothing is left for messages.
 */
export function computeBudget({
  window,
  maxOutputTokens,
  responseReserve,
  safetyMargin,
  accuracy = 'exact',
  toolTokens = 0,
}: BudgetOptions): Budget {
  if (!Number.isFinite(window) || window <= 0) {
    throw new ChatfoldError(
      'E_INVALID_OPTIONS',
      `window: expected a positive number of tokens, received ${window}`,
      {
        window,
      },
    );
  }
  const reserve =
    responseReserve ??
    Math.min(maxOutputTokens ?? 4096, Math.floor(window * MAX_RESERVE_SHARE), MAX_DERIVED_RESERVE);
  const margin = Math.ceil(window * (safetyMargin ?? DEFAULTS.safetyMargin[accuracy]));
  const messages = window - reserve - margin - toolTokens;
  if (messages <= 0) {
    throw new ChatfoldError(
      'E_BUDGET_IMPOSSIBLE',
      `no room for messages: window ${window} − response reserve ${reserve} − safety margin ${margin} − tool definitions ${toolTokens} = ${messages}; use a larger window, a smaller responseReserve or fewer tools`,
      { window, responseReserve: reserve, safetyMargin: margin, toolTokens, budget: messages },
    );
  }
  return { window, responseReserve: reserve, safetyMargin: margin, toolTokens, messages };
}
