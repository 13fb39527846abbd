import snapshot from './data/models.json' with { type: 'json' };
import { modelFamilyTokenizer } from './model-family-tokenizer.ts';
import { canonicalModelKey, undatedModelKey } from './model-keys.ts';
import type { ModelPricing } from './types.ts';

/** A model as a registry lists it (MOD-1). */
export interface ModelEntry {
  /** The provider's API id, e.g. `gpt-4o`, `claude-sonnet-4-5`. */
  readonly id: string;
  /** `openai`, `anthropic`, `google`, `meta`, `alibaba`, `deepseek`, `mistral`, … */
  readonly provider: string;
  /** Maximum input tokens (the context window). */
  readonly contextWindow: number;
  /** Maximum output tokens per response; `undefined` when no dataset publishes it. */
  readonly maxOutputTokens?: number;
  /** Tokenizer id, e.g. `openai:o200k_base`, `anthropic:claude`, `open:llama3`, `chars/4`. */
  readonly tokenizer: string;
  /** US dollars per million tokens. */
  readonly pricing: ModelPricing;
  /** Other ids of the same model: dated snapshots, dotted spellings (`claude-3.5-sonnet`). */
  readonly aliases?: readonly string[];
}

/**
 * How a model was matched (MOD-2), from the most to the least certain: the registry's own
 * lookup (`exact`, `alias`, `undated`, `prefix`), then another spelling of a listed id
 * (`spelling`: Ollama tags, `llama3.1` for `llama-3.1`), a preview without a GA entry
 * (`preview`), a family's default member (`family`), the only model the listing shows (`listing`).
 */
export type ModelMatchKind =
  | 'exact'
  | 'alias'
  | 'undated'
  | 'prefix'
  | 'spelling'
  | 'preview'
  | 'family'
  | 'listing';

/** A registry hit. */
export interface ModelMatch {
  readonly entry: ModelEntry;
  readonly matchedBy: ModelMatchKind;
}

/** A set of models that `resolveModel` and `listModels` search. */
export interface ModelRegistry {
  readonly entries: readonly ModelEntry[];
  /**
   * Finds a model by id (MOD-2): exact id, then alias, then without a date suffix
   * (`gpt-4o-2024-08-06` → `gpt-4o`), then the longest registry id the query starts with
   * (`gpt-4o-mini-search` → `gpt-4o-mini`). Case, dots vs dashes (`claude-3.5-sonnet`),
   * `-latest` and provider prefixes (`anthropic/…`, `meta-llama/…`) do not matter; a
   * provider prefix that names a provider restricts the search to it.
   */
  find(id: string): ModelMatch | undefined;
}

/** Provider prefixes people write that differ from the registry's provider names. */
const PROVIDER_ALIASES: Readonly<Record<string, string>> = {
  'x-ai': 'xai',
  gemini: 'google',
  'google-vertex': 'google',
  vertex_ai: 'google',
  'meta-llama': 'meta',
  qwen: 'alibaba',
  mistralai: 'mistral',
  'deepseek-ai': 'deepseek',
  moonshot: 'moonshotai',
};

/** The provider a `provider/model` id names, if any. */
export function providerOfModelId(id: string): string | undefined {
  const slash = id.indexOf('/');
  if (slash <= 0) return undefined;
  const prefix = id.slice(0, slash).trim().toLowerCase();
  return PROVIDER_ALIASES[prefix] ?? prefix;
}

/**
 * Creates a registry from entries (MOD-1), e.g. from your own file through
 * `loadModelRegistry`. With `base`, the entries extend and override that registry: an entry
 * with the same provider and id replaces the base's.
 *
 * @example
 * const registry = createModelRegistry(
 *   [{ id: 'my-llama', provider: 'local', contextWindow: 32_768, maxOutputTokens: 4096, tokenizer: 'open:llama3', pricing: {} }],
 *   { base: bundledModelRegistry() },
 * );
 */
export function createModelRegistry(
  entries: readonly ModelEntry[],
  { base }: { readonly base?: ModelRegistry } = {},
): ModelRegistry {
  const own = new Set(entries.map((entry) => `${entry.provider}/${canonicalModelKey(entry.id)}`));
  const all = [
    ...entries,
    ...(base?.entries ?? []).filter((entry) => !own.has(`${entry.provider}/${canonicalModelKey(entry.id)}`)),
  ];
  // key → entries in priority order (own entries first, then the base's).
  const byId = new Map<string, ModelEntry[]>();
  const byAlias = new Map<string, ModelEntry[]>();
  const push = (index: Map<string, ModelEntry[]>, key: string, entry: ModelEntry): void => {
    const list = index.get(key);
    if (list === undefined) index.set(key, [entry]);
    else if (!list.includes(entry)) list.push(entry);
  };
  for (const entry of all) {
    push(byId, canonicalModelKey(entry.id), entry);
    for (const alias of entry.aliases ?? []) push(byAlias, canonicalModelKey(alias), entry);
  }
  const keysLongestFirst = [...new Set([...byId.keys(), ...byAlias.keys()])].sort(
    (a, b) => b.length - a.length,
  );

  const pick = (candidates: readonly ModelEntry[] | undefined, provider: string | undefined) =>
    provider === undefined
      ? candidates?.[0]
      : (candidates?.find((entry) => entry.provider === provider) ?? undefined);

  return {
    entries: all,
    find(id) {
      const provider = providerOfModelId(id);
      const scoped = provider !== undefined && all.some((entry) => entry.provider === provider);
      const within = scoped ? provider : undefined;
      const key = canonicalModelKey(id);
      const lookups: [ModelMatchKind, ModelEntry | undefined][] = [
        ['exact', pick(byId.get(key), within)],
        ['alias', pick(byAlias.get(key), within)],
      ];
      for (const [matchedBy, entry] of lookups) if (entry !== undefined) return { entry, matchedBy };
      const undated = undatedModelKey(id);
      const dated = pick(byId.get(undated), within) ?? pick(byAlias.get(undated), within);
      if (dated !== undefined && undated !== key) return { entry: dated, matchedBy: 'undated' };
      for (const candidate of keysLongestFirst) {
        if (!key.startsWith(`${candidate}-`)) continue;
        const entry = pick(byId.get(candidate), within) ?? pick(byAlias.get(candidate), within);
        if (entry !== undefined) return { entry, matchedBy: 'prefix' };
      }
      return undefined;
    },
  };
}

let bundled: ModelRegistry | undefined;

/**
 * The registry bundled with chatfold (MOD-1): a snapshot of maintained public datasets
 * (`@pydantic/genai-prices`, models.dev, `ai-tokenizer`, `llm-zoo`; all MIT, see
 * `src/models/data/LICENSES.md`) generated by `scripts/update-models.ts`. Indexed on first use.
 */
export function bundledModelRegistry(): ModelRegistry {
  bundled ??= createModelRegistry(
    snapshot.models.map((model) => ({
      ...model,
      tokenizer: model.tokenizer ?? modelFamilyTokenizer(model.id, model.provider),
    })),
  );
  return bundled;
}

/** When and from what the bundled snapshot was generated. */
export const BUNDLED_MODELS_SOURCES: {
  readonly generatedAt: string;
  readonly sources: readonly { readonly name: string; readonly version: string; readonly license: string }[];
} = { generatedAt: snapshot.generatedAt, sources: snapshot.sources };
