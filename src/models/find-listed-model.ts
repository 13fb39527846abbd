import { listModels } from './list-models.ts';
import { canonicalModelKey, sizeTaggedId } from './model-keys.ts';
import { type ModelEntry, type ModelMatch, type ModelRegistry, providerOfModelId } from './registry.ts';

/**
 * The member a bare family name stands for (MOD-2): the default tag of the name in Ollama's
 * library (`ollama run qwen3` is `qwen3:8b`), where people type these names, and the API's
 * default model for `deepseek`. Set `contextWindow` or use a full id for another member.
 */
export const FAMILY_DEFAULTS: Readonly<Record<string, string>> = {
  qwen3: 'qwen3-8b',
  'gpt-oss': 'gpt-oss-20b',
  gemma3: 'gemma-3-4b-it',
  'llama3-1': 'llama-3.1-8b',
  'llama3-3': 'llama-3.3-70b',
  deepseek: 'deepseek-chat',
};

/** What {@link findListedModel} found, or the ids a family name leaves open. */
export type ListedModel =
  | { readonly type: 'match'; readonly match: ModelMatch; readonly note?: string }
  | { readonly type: 'ambiguous'; readonly candidates: readonly ModelEntry[] }
  | { readonly type: 'none' };

/** A key without dashes: `llama3.1:8b` and `llama-3.1-8b` meet as `llama318b`. */
const looseKey = (id: string): string => canonicalModelKey(id).replaceAll('-', '');

/**
 * Finds a model the registry lists under another spelling when its own lookup (`find`) fails,
 * so resolution agrees with `chatfold models` (MOD-2, MOD-3):
 * 1. an Ollama tag joined to its name (`qwen3:8b` → `qwen3-8b`, `gpt-oss:20b` → `gpt-oss-20b`);
 * 2. the one entry whose id spelled without dashes equals it (`llama3.1:8b` → `llama-3.1-8b`);
 * 3. the preview of a model without a general-availability entry (`gemini-3-pro` →
 *    `gemini-3-pro-preview`);
 * 4. the one entry whose id without dashes starts with it (`gemma3:12b` → `gemma-3-12b-it`);
 * 5. a bare family name's documented default member ({@link FAMILY_DEFAULTS});
 * 6. the listing of `chatfold models <id>`: its only model, or, when it shows several, the list.
 */
export function findListedModel(id: string, registry: ModelRegistry): ListedModel {
  const provider = providerOfModelId(id);
  const scoped = provider !== undefined && registry.entries.some((entry) => entry.provider === provider);
  const name = id.trim().replace(/^.*\//, '');
  const joined = sizeTaggedId(name);
  if (joined !== undefined) {
    const found = registry.find(scoped ? `${provider}/${joined}` : joined);
    if (found !== undefined) return { type: 'match', match: { ...found, matchedBy: 'spelling' } };
  }
  const entries = registry.entries.filter((entry) => !scoped || entry.provider === provider);
  const keysOf = (entry: ModelEntry) => [entry.id, ...(entry.aliases ?? [])].map(looseKey);
  // A size tag names a member: `qwen2.5-coder:7b` must not find the 32b.
  const wanted = [joined ?? name].map(looseKey);
  const only = (found: ModelEntry[]) => (found.length === 1 ? found[0] : undefined);
  const spelled =
    wanted.map((loose) => only(entries.filter((entry) => keysOf(entry).includes(loose)))).find(Boolean) ??
    undefined;
  if (spelled !== undefined) return { type: 'match', match: { entry: spelled, matchedBy: 'spelling' } };
  const key = canonicalModelKey(id);
  const preview = registry.find(scoped ? `${provider}/${key}-preview` : `${key}-preview`);
  if (preview !== undefined) {
    return {
      type: 'match',
      match: { entry: preview.entry, matchedBy: 'preview' },
      note: `no generally available ${JSON.stringify(key)} in the registry; using its preview ${JSON.stringify(preview.entry.id)}`,
    };
  }
  const extended = wanted
    .map((loose) => only(entries.filter((entry) => keysOf(entry).some((k) => k.startsWith(loose)))))
    .find(Boolean);
  if (extended !== undefined) return { type: 'match', match: { entry: extended, matchedBy: 'spelling' } };
  // A bare family name only: `gemma3:27b` names a member, not the family's default.
  const member = joined === undefined ? FAMILY_DEFAULTS[key] : undefined;
  const family = member === undefined ? undefined : registry.find(member);
  if (family !== undefined) {
    return {
      type: 'match',
      match: { entry: family.entry, matchedBy: 'family' },
      note: `${JSON.stringify(id.trim())} names a model family; using its default member ${JSON.stringify(family.entry.id)} (pass a full id for another)`,
    };
  }
  const listed = listModels(id, { registry });
  if (listed.length === 1 && listed[0] !== undefined) {
    return {
      type: 'match',
      match: { entry: listed[0], matchedBy: 'listing' },
      note: `${JSON.stringify(id.trim())} is not a registry id; using ${JSON.stringify(listed[0].id)}, the one model \`chatfold models ${id.trim()}\` lists`,
    };
  }
  return listed.length > 1 ? { type: 'ambiguous', candidates: listed } : { type: 'none' };
}
