import { ChatfoldError } from '../errors/chatfold-error.ts';
import { findListedModel } from './find-listed-model.ts';
import { modelFamilyTokenizer } from './model-family-tokenizer.ts';
import {
  bundledModelRegistry,
  type ModelMatchKind,
  type ModelRegistry,
  providerOfModelId,
} from './registry.ts';
import type { ModelInfo, ModelPricing } from './types.ts';

/**
 * Used for models nobody knows (MOD-2): small on purpose, so requests fit rather than fail.
 * Set `contextWindow` (and `maxOutputTokens`) in your configuration to use a model's real size.
 */
export const DEFAULT_MODEL: {
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
} = { contextWindow: 8192, maxOutputTokens: 4096 };

/** Explicit configuration that wins over the registry (MOD-2). */
export interface ModelOverrides {
  readonly provider?: string;
  readonly contextWindow?: number;
  readonly maxOutputTokens?: number;
  readonly tokenizer?: string;
  /** Merged field by field over the registry's prices. */
  readonly pricing?: ModelPricing;
}

/** A resolved model and what resolution noticed. */
export interface ResolvedModel extends ModelInfo {
  /** How the registry matched; `undefined` when it did not. */
  readonly matchedBy?: ModelMatchKind;
  /** Human-readable notes: unknown model, assumed max output, prefix match. */
  readonly warnings: readonly string[];
}

/** Options of {@link resolveModel}. */
export interface ResolveModelOptions {
  readonly overrides?: ModelOverrides;
  /** Registry to search. Default: the bundled one. */
  readonly registry?: ModelRegistry;
}

const thousands = (n: number): string => n.toLocaleString('en-US');

function checkOverrides(overrides: ModelOverrides): void {
  for (const key of ['contextWindow', 'maxOutputTokens'] as const) {
    const value = overrides[key];
    if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `${key}: expected a positive integer number of tokens, received ${JSON.stringify(value)}`,
        { option: key, received: value },
      );
    }
  }
  for (const [key, value] of Object.entries(overrides.pricing ?? {})) {
    if (value !== undefined && !(typeof value === 'number' && value >= 0 && Number.isFinite(value))) {
      throw new ChatfoldError(
        'E_INVALID_OPTIONS',
        `pricing.${key}: expected US dollars per million tokens (a number >= 0), received ${JSON.stringify(value)}`,
        { option: `pricing.${key}`, received: value },
      );
    }
  }
}

/**
 * Resolves what chatfold knows about a model (MOD-2), in this order: explicit `overrides`
 * (your configuration) > the registry (exact id, alias, provider prefix such as
 * `anthropic/…`, dated suffix such as `-20241022`, `-latest`, longest id prefix; case and
 * `3.5`/`3-5` spelling do not matter; then what `chatfold models <id>` lists: Ollama tags
 * such as `qwen3:8b`, `llama3.1` for `llama-3.1`, a preview when no GA entry exists, a family's
 * default member (`FAMILY_DEFAULTS`), the listing's only model) > a conservative default
 * ({@link DEFAULT_MODEL}: 8,192-token window, 4,096 output, the model family's tokenizer or
 * chars/4) with a warning that names the unknown model. A name the listing shows several
 * models for, and that has no default member, is an error naming them.
 *
 * @param id - Model id as you pass it to the provider, optionally `provider/id`.
 * @returns The model's window, max output, tokenizer, prices, where they came from, and warnings.
 * @throws ChatfoldError `E_UNKNOWN_MODEL` for an empty id or a name that matches several models
 *   (details: `candidates`) unless `contextWindow` is given; `E_INVALID_OPTIONS` for bad overrides.
 * @example
 * resolveModel('anthropic/claude-3-5-sonnet-20241022').contextWindow; // 200000
 * resolveModel('my-finetune', { overrides: { contextWindow: 32_768 } }).source; // 'config'
 */
export function resolveModel(
  id: string,
  { overrides = {}, registry = bundledModelRegistry() }: ResolveModelOptions = {},
): ResolvedModel {
  if (typeof id !== 'string' || id.trim() === '') {
    throw new ChatfoldError(
      'E_UNKNOWN_MODEL',
      `model: expected a model id such as "gpt-4o", received ${JSON.stringify(id)}`,
      { received: id },
    );
  }
  checkOverrides(overrides);
  const warnings: string[] = [];
  let match = registry.find(id);
  if (match === undefined) {
    const listed = findListedModel(id, registry);
    if (listed.type === 'match') {
      match = listed.match;
      if (listed.note !== undefined) warnings.push(listed.note);
    } else if (listed.type === 'ambiguous' && overrides.contextWindow === undefined) {
      // The listing shows the model: never fall silently to the 8,192-token default.
      const ids = listed.candidates.map((candidate) => candidate.id);
      throw new ChatfoldError(
        'E_UNKNOWN_MODEL',
        `model ${JSON.stringify(id.trim())} matches ${ids.length} models in the registry (${ids.slice(0, 12).join(', ')}${ids.length > 12 ? ', …' : ''}); pass one of these ids (\`chatfold models ${id.trim()}\` lists them), or give the window yourself (\`window\` in chatfold's options, \`--window\` on the CLI)`,
        { model: id.trim(), candidates: ids },
      );
    }
  }
  const entry = match?.entry;
  if (entry === undefined && overrides.contextWindow === undefined) {
    warnings.push(
      `unknown model ${JSON.stringify(id)}: using a conservative ${thousands(DEFAULT_MODEL.contextWindow)}-token window; give the real size with \`window\` (and \`maxOutputTokens\`) in chatfold's options, or \`--window\` on the CLI`,
    );
  }
  if (match?.matchedBy === 'prefix') {
    warnings.push(
      `model ${JSON.stringify(id)} is not in the registry; using the entry of ${JSON.stringify(match.entry.id)}, whose id it starts with`,
    );
  }
  let maxOutputTokens = overrides.maxOutputTokens ?? entry?.maxOutputTokens;
  if (maxOutputTokens === undefined) {
    maxOutputTokens = DEFAULT_MODEL.maxOutputTokens;
    if (entry !== undefined) {
      warnings.push(
        `the bundled datasets do not publish the max output of ${JSON.stringify(entry.id)}; assuming ${thousands(maxOutputTokens)} tokens (set maxOutputTokens to change it)`,
      );
    }
  }
  const contextWindow = overrides.contextWindow ?? entry?.contextWindow ?? DEFAULT_MODEL.contextWindow;
  const pricing: ModelPricing = { ...entry?.pricing, ...withoutUndefined(overrides.pricing ?? {}) };
  const hasOverrides = Object.values(overrides).some((value) => value !== undefined);
  return {
    id: entry?.id ?? id.trim(),
    provider: overrides.provider ?? entry?.provider ?? providerOfModelId(id) ?? 'unknown',
    contextWindow,
    maxOutputTokens: Math.min(maxOutputTokens, contextWindow),
    tokenizer: overrides.tokenizer ?? entry?.tokenizer ?? modelFamilyTokenizer(id),
    pricing,
    source: hasOverrides ? 'config' : entry === undefined ? 'default' : 'registry',
    ...(match === undefined ? {} : { matchedBy: match.matchedBy }),
    warnings,
  };
}

function withoutUndefined(pricing: ModelPricing): ModelPricing {
  return Object.fromEntries(Object.entries(pricing).filter(([, value]) => value !== undefined));
}
