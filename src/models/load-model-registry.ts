import type { z } from 'zod';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { modelFamilyTokenizer } from './model-family-tokenizer.ts';
import { createModelRegistry, type ModelEntry, type ModelRegistry } from './registry.ts';
import { modelSnapshotEntrySchema, modelSnapshotSchema } from './snapshot-schema.ts';

/** Options of {@link loadModelRegistry}. */
export interface LoadModelRegistryOptions {
  /** Registry the file extends; its entries with the same provider and id are replaced. */
  readonly base?: ModelRegistry;
  /** Name of the file, for error messages. */
  readonly source?: string;
}

/** `models[3].pricing.input` from a zod issue path. */
function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

/**
 * Reads a model registry file (MOD-1 "updatable from a file"): the bundled snapshot's shape
 * `{ "models": [ … ] }` or just the array. Each model needs `id`, `provider` and
 * `contextWindow`; `maxOutputTokens`, `tokenizer` (default: the model family's), `pricing`
 * (`input`, `output`, `cacheRead`, `cacheWrite` in US dollars per million tokens) and
 * `aliases` are optional.
 *
 * @param jsonText - The file's content.
 * @returns A registry; pass it to `resolveModel(id, { registry })` or `listModels`.
 * @throws ChatfoldError `E_INVALID_FORMAT` naming the first invalid field's path, what was
 *   expected and what was received.
 * @example
 * const registry = loadModelRegistry(readFileSync('models.json', 'utf8'), { base: bundledModelRegistry() });
 */
export function loadModelRegistry(jsonText: string, options: LoadModelRegistryOptions = {}): ModelRegistry {
  const where = options.source ?? 'model registry';
  let value: unknown;
  try {
    value = JSON.parse(jsonText);
  } catch (cause) {
    throw new ChatfoldError(
      'E_INVALID_FORMAT',
      `${where}: not valid JSON (${(cause as Error).message})`,
      { source: where },
      { cause },
    );
  }
  const document = Array.isArray(value) ? { models: value } : value;
  const parsed = modelSnapshotSchema.safeParse(document);
  if (!parsed.success) throw invalid(where, parsed.error, Array.isArray(value));
  const entries: ModelEntry[] = parsed.data.models.map((model) => ({
    id: model.id,
    provider: model.provider,
    contextWindow: model.contextWindow,
    ...(model.maxOutputTokens === undefined ? {} : { maxOutputTokens: model.maxOutputTokens }),
    tokenizer: model.tokenizer ?? modelFamilyTokenizer(model.id, model.provider),
    pricing: Object.fromEntries(Object.entries(model.pricing ?? {}).filter(([, v]) => v !== undefined)),
    ...(model.aliases === undefined ? {} : { aliases: model.aliases }),
  }));
  return createModelRegistry(entries, options.base === undefined ? {} : { base: options.base });
}

function invalid(where: string, error: z.ZodError, bareArray: boolean): ChatfoldError {
  const issue = error.issues[0] as z.core.$ZodIssue;
  const path = bareArray ? issue.path.slice(1) : issue.path;
  const at = formatPath(path) || '(root)';
  const hint =
    issue.path.length === 0
      ? ' (expected { "models": [ … ] } or an array of models)'
      : issue.code === 'unrecognized_keys'
        ? ` (known keys: ${Object.keys(modelSnapshotEntrySchema.shape).join(', ')})`
        : '';
  return new ChatfoldError('E_INVALID_FORMAT', `${where}: ${at}: ${issue.message}${hint}`, {
    source: where,
    path: at,
    issues: error.issues.map((i) => ({
      path: formatPath(bareArray ? i.path.slice(1) : i.path),
      message: i.message,
    })),
  });
}
