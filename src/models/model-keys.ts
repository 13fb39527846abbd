/** Amazon Bedrock's `[region.]vendor.` prefix: `us.anthropic.claude-…`, `meta.llama3-…`. */
const BEDROCK_PREFIX =
  /^(?:[a-z]{2}\.)?(?:anthropic|meta|mistral|amazon|cohere|ai21|deepseek|openai|qwen|google)\./;

/**
 * The spelling of a model id that registry lookups compare (MOD-2): lower case; no provider
 * or organisation prefix (`anthropic/`, `meta-llama/`, Bedrock's `us.anthropic.`); no tag
 * after `:` or `@` (OpenAI `ft:` fine-tunes, Ollama sizes, Bedrock versions, Vertex dates);
 * dots as dashes (`claude-3.5-sonnet` meets `claude-3-5-sonnet`); no `-latest` suffix.
 *
 * @example
 * canonicalModelKey('anthropic/Claude-3.5-Sonnet-latest'); // 'claude-3-5-sonnet'
 * canonicalModelKey('ft:gpt-4o-mini-2024-07-18:acme::9x'); // 'gpt-4o-mini-2024-07-18'
 */
export function canonicalModelKey(id: string): string {
  return id
    .trim()
    .toLowerCase()
    .replace(/^ft:/, '')
    .replace(/^.*\//, '')
    .replace(BEDROCK_PREFIX, '')
    .replace(/[:@].*$/, '')
    .replaceAll('.', '-')
    .replace(/-latest$/, '');
}

/** Release-date suffixes providers append to pinned snapshots. */
const DATE_SUFFIX = /-(?:\d{8}|\d{4}-\d{2}-\d{2}|\d{2}-\d{2}|\d{4})$/;

/**
 * {@link canonicalModelKey} without a release-date suffix: `claude-3-5-sonnet-20241022`,
 * `gpt-4o-2024-08-06`, `gemini-2.5-flash-preview-05-20` → their undated family id. Used
 * only after exact and alias lookups fail, because some dated snapshots differ from the
 * undated alias (price, window).
 *
 * @example
 * undatedModelKey('gpt-4o-2024-08-06'); // 'gpt-4o'
 */
export function undatedModelKey(id: string): string {
  return canonicalModelKey(id).replace(DATE_SUFFIX, '');
}

/** An Ollama size tag (`8b`, `1.5b`, `e4b`, `70b-instruct-q4_K_M`): its size part. */
const SIZE_TAG = /^([^:/@]+):((?:\d+(?:\.\d+)?|e\d+)[bm])(?:-.*)?$/i;

/**
 * An Ollama-style `name:size` id spelled as registries list the member (MOD-2):
 * `qwen3:8b` → `qwen3-8b`, `llama3.1:70b-instruct-q4_K_M` → `llama3.1-70b`; `undefined` for
 * ids without a size tag (`gpt-4o`, Bedrock's `…-v2:0`, OpenAI's `ft:…`).
 *
 * @example
 * sizeTaggedId('ollama/gpt-oss:20b'); // 'gpt-oss-20b'
 */
export function sizeTaggedId(id: string): string | undefined {
  const match = SIZE_TAG.exec(id.trim().replace(/^.*\//, ''));
  return match === null ? undefined : `${match[1]}-${match[2]}`;
}
