import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../messages/types.ts';
import { createCalibratedTokenCounter } from './calibrated-counter.ts';
import { countTokens } from './count-tokens.ts';
import { createTokenCounter, DEFAULT_CACHE_SIZE } from './create-token-counter.ts';
import { tokenizerForModel } from './tokenizer-for-model.ts';

const cookbook = JSON.parse(
  readFileSync(new URL('../../test/fixtures/tokens/openai-cookbook-messages.json', import.meta.url), 'utf8'),
) as {
  messages: { role: 'system' | 'user'; name?: string; content: string }[];
  apiPromptTokens: Record<string, number>;
};

const asMessages = (items: typeof cookbook.messages): Message[] =>
  items.map((item, i) => ({
    id: `m${i}`,
    role: item.role,
    ...(item.name === undefined ? {} : { name: item.name }),
    createdAt: '2026-01-01T00:00:00Z',
    parts: [{ type: 'text', text: item.content }],
  }));

const text = (id: string, body: string, role: Message['role'] = 'user'): Message => ({
  id,
  role,
  createdAt: '',
  parts: [{ type: 'text', text: body }],
});

describe('OpenAI counts (TOK-2)', () => {
  for (const [model, expected] of Object.entries(cookbook.apiPromptTokens)) {
    it(`equals the prompt_tokens the API reported for the cookbook example on ${model}`, () => {
      const result = countTokens(asMessages(cookbook.messages), { model });
      expect(result.total).toBe(expected);
      expect(result.accuracy).toBe('exact');
    });
  }

  const tools = JSON.parse(
    readFileSync(new URL('../../test/fixtures/tokens/openai-cookbook-tools.json', import.meta.url), 'utf8'),
  ) as {
    tools: { function: { name: string; description: string; parameters: Record<string, never> } }[];
    messages: typeof cookbook.messages;
    apiPromptTokens: Record<string, number>;
  };
  for (const [model, expected] of Object.entries(tools.apiPromptTokens)) {
    it(`counts tool definitions as the API did for the cookbook's function-calling example on ${model}`, () => {
      const definitions = tools.tools.map((t) => t.function);
      expect(countTokens(asMessages(tools.messages), { model, tools: definitions }).total).toBe(expected);
    });
  }

  it('counts special-token strings as ordinary text and never throws', () => {
    for (const tokenizer of ['openai:o200k_base', 'openai:cl100k_base', 'anthropic:claude']) {
      const counter = createTokenCounter({ tokenizer });
      expect(counter.countText('a <|endoftext|> b <|im_start|> <|fim_prefix|>')).toBeGreaterThan(5);
    }
  });

  it('picks tokenizers by model family', () => {
    expect(tokenizerForModel('openai/gpt-4o-2024-08-06')).toBe('openai:o200k_base');
    expect(tokenizerForModel('gpt-5-mini')).toBe('openai:o200k_base');
    expect(tokenizerForModel('gpt-4-0613')).toBe('openai:cl100k_base');
    expect(tokenizerForModel('claude-sonnet-4-5')).toBe('anthropic:claude');
    expect(tokenizerForModel('some-local-model')).toBe('chars/4');
  });
});

describe('cache (TOK-6)', () => {
  it('encodes only the new message when a conversation grows by one', () => {
    const encoded: string[] = [];
    const counter = createTokenCounter({
      tokenizer: 'spy',
      encode: (value) => {
        encoded.push(value);
        return value.length;
      },
    });
    const messages = Array.from({ length: 100 }, (_, i) => text(`m${i}`, `message number ${i}`));
    const before = counter.count(messages).total;
    encoded.length = 0;
    const grown = [...messages, text('new', 'the one new message')];
    expect(counter.count(grown).total).toBeGreaterThan(before);
    expect(encoded).toEqual(['user', 'the one new message']);
    // the same content in a new object is served from the content-hash cache
    encoded.length = 0;
    counter.countMessage(structuredClone(messages[7] as Message));
    expect(encoded).toEqual([]);
  });

  it('encodes the same tool definitions once, also when the array is rebuilt per call', () => {
    const encoded: string[] = [];
    const counter = createTokenCounter({
      tokenizer: 'spy',
      encode: (value) => {
        encoded.push(value);
        return value.length;
      },
    });
    const tools = () => [
      { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: {} } },
    ];
    const first = counter.count([], { tools: tools() }).tools;
    expect(encoded.length).toBeGreaterThan(0);
    encoded.length = 0;
    expect(counter.count([], { tools: tools() }).tools).toBe(first);
    expect(encoded).toEqual([]);
    const changed = [{ ...tools()[0], description: 'Read a whole file' }] as ReturnType<typeof tools>;
    expect(counter.count([], { tools: changed }).tools).toBeGreaterThan(first);
  });

  it('recounts a rebuilt list longer than the default cache without encoding anything again (issue 19)', () => {
    let encoded = 0;
    const counter = createTokenCounter({
      tokenizer: 'spy',
      encode: (value) => {
        encoded++;
        return value.length;
      },
    });
    const size = DEFAULT_CACHE_SIZE + 10_000;
    const build = () => Array.from({ length: size }, (_, i) => text(`m${i}`, `message ${i}`));
    const first = counter.count(build()).total;
    expect(encoded).toBeGreaterThanOrEqual(size);
    encoded = 0;
    // Equal content in new objects, as a stateless caller converts its history on every call.
    expect(counter.count(build()).total).toBe(first);
    expect(encoded).toBe(0);
  });

  it('counts the same with a cache of 3 entries as with the default (eviction never changes a count)', () => {
    const messages = Array.from({ length: 200 }, (_, i) =>
      text(`m${i}`, `message ${i % 50} ${'word '.repeat(i % 7)}`, i % 2 === 0 ? 'user' : 'assistant'),
    );
    const small = createTokenCounter({ tokenizer: 'openai:o200k_base', cacheSize: 3 });
    const large = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    const fresh = () => messages.map((message) => structuredClone(message));
    const expected = large.count(messages);
    for (let round = 0; round < 3; round++) expect(small.count(fresh())).toEqual(expected);
  });

  it('rejects a cache size that is not a positive integer, saying what it expected', () => {
    for (const cacheSize of [0, -1, 1.5, Number.NaN]) {
      expect(() => createTokenCounter({ tokenizer: 'chars/4', cacheSize })).toThrowError(
        expect.objectContaining({
          code: 'E_INVALID_OPTIONS',
          message: expect.stringContaining('positive integer'),
        }),
      );
    }
  });

  it("keeps each count's per-message numbers, also when read after later recounts", () => {
    const counter = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    const history = Array.from({ length: 120 }, (_, i) => text(`h${i}`, `message ${i}`));
    const first = counter.count(history);
    const grown = [...history, text('n1', 'a longer new message with more words in it')];
    const second = counter.count(grown);
    const other = counter.count([text('x', 'other'), ...grown.slice(1)]);
    expect(first.perMessage).toEqual(history.map((m) => counter.countMessage(m)));
    expect(second.perMessage).toEqual(grown.map((m) => counter.countMessage(m)));
    expect(other.perMessage).toHaveLength(grown.length);
    expect(JSON.parse(JSON.stringify(second)).perMessage).toEqual(second.perMessage);
    expect({ ...first }.perMessage).toEqual(first.perMessage);
  });

  it('counts per message plus prompt overhead (property)', () => {
    const counter = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    fc.assert(
      fc.property(fc.array(fc.string(), { maxLength: 20 }), (texts) => {
        const messages = texts.map((t, i) => text(`p${i}`, t));
        const result = counter.count(messages);
        expect(result.total).toBe(result.perMessage.reduce((a, b) => a + b, 0) + result.overhead);
        expect(counter.count(messages)).toEqual(result);
      }),
    );
  });
});

describe('chars/N fallback (TOK-7)', () => {
  it('is approximate and configurable', () => {
    expect(createTokenCounter({ tokenizer: 'chars/4' }).countText('x'.repeat(10))).toBe(3);
    expect(createTokenCounter({ tokenizer: 'chars/2' }).countText('x'.repeat(10))).toBe(5);
    expect(createTokenCounter({ tokenizer: 'chars/4' }).accuracy).toBe('approximate');
    expect(() => createTokenCounter({ tokenizer: 'bogus' })).toThrowError(
      expect.objectContaining({ code: 'E_TOKENIZER' }),
    );
  });
});

describe('calibration (TOK-5)', () => {
  it('reports last usage + estimate of newer messages, and learns the ratio', () => {
    const counter = createCalibratedTokenCounter(createTokenCounter({ tokenizer: 'chars/4' }));
    const prompt = [text('a', 'x'.repeat(400)), text('b', 'y'.repeat(400))];
    const estimate = counter.count(prompt).total;
    counter.recordUsage(prompt, { inputTokens: Math.round(estimate * 1.2) });
    expect(counter.ratio).toBeCloseTo(1.2, 1);
    expect(counter.accuracy).toBe('calibrated');
    const grown = [...prompt, text('c', 'z'.repeat(400))];
    const next = counter.count(grown);
    expect(next.total).toBe(Math.round(estimate * 1.2) + (next.perMessage[2] as number));
  });

  it('corrects drift: repeated reports pull the ratio toward the truth, bounded', () => {
    const counter = createCalibratedTokenCounter(createTokenCounter({ tokenizer: 'chars/4' }));
    const prompt = [text('a', 'x'.repeat(4000))];
    const estimate = createTokenCounter({ tokenizer: 'chars/4' }).count(prompt).total;
    counter.recordUsage(prompt, { inputTokens: estimate });
    for (let i = 0; i < 20; i++) counter.recordUsage(prompt, { inputTokens: Math.round(estimate * 1.5) });
    expect(counter.ratio).toBeCloseTo(1.5, 2);
    counter.recordUsage(prompt, { inputTokens: estimate * 100 });
    expect(counter.ratio).toBeLessThanOrEqual(2);
  });
});
