import { canonicalModelKey, sizeTaggedId } from './model-keys.ts';
import { bundledModelRegistry, type ModelEntry, type ModelRegistry } from './registry.ts';

/** Options of {@link listModels}. */
export interface ListModelsOptions {
  /** Registry to list. Default: the bundled one. */
  readonly registry?: ModelRegistry;
}

const searchable = (text: string): string => text.toLowerCase().replaceAll('.', '-');
const dashless = (text: string): string => text.replaceAll('-', '');

/**
 * Lists the models a registry knows (MOD-3), sorted by provider and id. A query keeps the
 * models whose `provider/id` or an alias contains every word of it (case, `3.5`/`3-5`, dashes
 * — `gemma3` finds `gemma-3-…` — and a trailing `-latest` do not matter; an Ollama size tag
 * is part of the name: `qwen3:8b` finds `qwen3-8b`).
 *
 * @example
 * listModels('claude sonnet').map((m) => m.id); // ['claude-3-5-sonnet', …]
 */
export function listModels(
  query = '',
  { registry = bundledModelRegistry() }: ListModelsOptions = {},
): ModelEntry[] {
  const words = query
    .split(/\s+/)
    .filter((word) => word !== '')
    .map((word) => searchable(word.includes('/') ? word : canonicalModelKey(sizeTaggedId(word) ?? word)));
  return registry.entries
    .filter((entry) => {
      const haystack = searchable([`${entry.provider}/${entry.id}`, ...(entry.aliases ?? [])].join(' '));
      const loose = dashless(haystack);
      return words.every((word) => haystack.includes(word) || loose.includes(dashless(word)));
    })
    .sort((a, b) => a.provider.localeCompare(b.provider) || a.id.localeCompare(b.id));
}
