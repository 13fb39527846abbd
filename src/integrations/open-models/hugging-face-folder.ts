import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { importPeer } from '../../errors/import-peer.ts';
import type { TokenCounter } from '../../tokens/types.ts';
import { chatTemplateOf, compileChatTemplate, templateSpecialTokens } from './chat-template.ts';
import { createChatTemplateTokenCounter, type HuggingFaceTokenizer } from './chat-template-token-counter.ts';

/** Options of {@link createHuggingFaceTokenCounter}. */
export interface HuggingFaceTokenCounterOptions {
  /**
   * A model folder as Hugging Face snapshots, vLLM and llama.cpp conversions keep it next to
   * the weights: `tokenizer.json`, `tokenizer_config.json`, and the chat template in the config
   * or in `chat_template.jinja` / `chat_template.json`.
   */
  readonly directory: string;
  /** A Jinja chat template to use instead of the folder's. */
  readonly chatTemplate?: string;
  /** Messages whose counts are kept by content hash. */
  readonly cacheSize?: number;
}

type Json = Record<string, unknown>;

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ChatfoldError(
      'E_FILE',
      `cannot read ${path}: ${(cause as Error).message}`,
      { path },
      { cause },
    );
  }
}

async function readJson(path: string): Promise<Json | undefined> {
  const text = await readText(path);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ChatfoldError(
      'E_INVALID_FORMAT',
      `${path}: not valid JSON (${(cause as Error).message})`,
      { path },
      { cause },
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ChatfoldError('E_INVALID_FORMAT', `${path}: expected a JSON object`, { path });
  return value as Json;
}

/**
 * A token counter from a local Hugging Face model folder (TOK-3): the model's own
 * `tokenizer.json` through `@lenml/tokenizers` (transformers.js's tokenizers without the
 * model runtime) and its chat template through `@huggingface/jinja`, measured as for the
 * bundled open models. Counts are exact against the template for plain conversations.
 *
 * @throws ChatfoldError `E_FILE` when `tokenizer.json` is missing, `E_INVALID_FORMAT` for a file
 *   that is not JSON, `E_TOKENIZER` when the folder has no chat template (pass `chatTemplate`)
 *   or the tokenizer does not load, `E_MISSING_DEPENDENCY` without the optional peers.
 * @example
 * const counter = await createHuggingFaceTokenCounter({ directory: '/models/Qwen3-8B' });
 */
export async function createHuggingFaceTokenCounter(
  options: HuggingFaceTokenCounterOptions,
): Promise<TokenCounter> {
  const directory = resolve(options.directory);
  const tokenizerPath = join(directory, 'tokenizer.json');
  const tokenizerJSON = await readJson(tokenizerPath);
  if (tokenizerJSON === undefined) {
    throw new ChatfoldError(
      'E_FILE',
      `no tokenizer.json in ${directory}: expected a Hugging Face model folder (tokenizer.json, tokenizer_config.json)`,
      { path: tokenizerPath },
    );
  }
  const tokenizerConfig = (await readJson(join(directory, 'tokenizer_config.json'))) ?? {};
  const source =
    options.chatTemplate ??
    (await readText(join(directory, 'chat_template.jinja'))) ??
    chatTemplateOf((await readJson(join(directory, 'chat_template.json'))) ?? {}) ??
    chatTemplateOf(tokenizerConfig);
  if (source === undefined) {
    throw new ChatfoldError(
      'E_TOKENIZER',
      `no chat template in ${directory} (tokenizer_config.json chat_template, chat_template.jinja or chat_template.json); pass chatTemplate`,
      { tokenizer: directory },
    );
  }
  const { TokenizerLoader } = await importPeer(
    '@lenml/tokenizers',
    () => import('@lenml/tokenizers'),
    'createHuggingFaceTokenCounter',
  );
  let encoder: HuggingFaceTokenizer;
  try {
    encoder = TokenizerLoader.fromPreTrained({
      tokenizerJSON,
      tokenizerConfig,
    }) as unknown as HuggingFaceTokenizer;
  } catch (cause) {
    throw new ChatfoldError(
      'E_TOKENIZER',
      `${tokenizerPath}: the tokenizer does not load (${(cause as Error).message})`,
      { tokenizer: directory },
      { cause },
    );
  }
  const template = await compileChatTemplate(source, templateSpecialTokens(tokenizerConfig), directory);
  return createChatTemplateTokenCounter({
    tokenizer: `hf:${directory}`,
    encoder,
    template,
    ...(options.cacheSize === undefined ? {} : { cacheSize: options.cacheSize }),
  }).counter;
}
