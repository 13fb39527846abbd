import { resolveModel } from '../models/resolve-model.ts';

/**
 * The model is not in the registry and no window was given: the agent assumes a small window
 * (`DEFAULT_MODEL`), which may be far from the model's real one. Front ends show it once.
 */
export interface UnknownModelWarning {
  readonly type: 'unknown-model';
  /** The model id as given. */
  readonly model: string;
  /** The context window assumed, in tokens. */
  readonly window: number;
  /** One line saying what was assumed and how to set it (`model.maxInputTokens`). */
  readonly message: string;
}

/** Something about the agent's configuration a person should know before the first turn. */
export type AgentWarning = UnknownModelWarning;

/**
 * Warnings about the agent's model: unknown to the registry with no `maxInputTokens` given.
 *
 * @param modelId The model id the window is resolved from.
 * @param maxInputTokens The window the configuration gives, if any.
 */
export function modelWarnings(modelId: string, maxInputTokens: number | undefined): AgentWarning[] {
  if (maxInputTokens !== undefined) return [];
  const resolved = resolveModel(modelId);
  if (resolved.matchedBy !== undefined) return [];
  const window = resolved.contextWindow;
  return [
    {
      type: 'unknown-model',
      model: modelId,
      window,
      message: `unknown model "${modelId}": assuming a context window of ${window.toLocaleString('en-US')} tokens; set model.maxInputTokens to the model's real window`,
    },
  ];
}
