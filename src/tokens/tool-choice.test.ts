import { describe, expect, it } from 'vitest';
import { fromOpenAI } from '../messages/openai.ts';
import type { Message, ToolDefinition } from '../messages/types.ts';
import { caughtError } from '../test/caught-error.ts';
import { createTokenCounter } from './create-token-counter.ts';
import type { CountOptions } from './types.ts';

const tools: ToolDefinition[] = [
  { name: 'search_sources', description: 'Search', parameters: { type: 'object', properties: {} } },
];
const user: Message = { id: 'u', role: 'user', createdAt: '', parts: [{ type: 'text', text: 'hello' }] };
const system = (text: string): Message => ({
  id: 's',
  role: 'system',
  createdAt: '',
  parts: [{ type: 'text', text }],
});

describe('toolChoice and functionCall (TOK-2)', () => {
  const counter = createTokenCounter({ tokenizer: 'openai:cl100k_base' });
  const toolsFor = (options: CountOptions) => counter.count([user], { tools, ...options }).tools;
  const name = counter.countText('search_sources');

  it('adds what the published cases show: none 1, a named tool 7 (legacy function_call 4) plus its name', () => {
    const auto = toolsFor({});
    expect(toolsFor({ toolChoice: 'auto' })).toBe(auto);
    expect(toolsFor({ toolChoice: 'none' })).toBe(auto + 1);
    expect(toolsFor({ toolChoice: { name: 'search_sources' } })).toBe(auto + 7 + name);
    expect(toolsFor({ toolChoice: { type: 'function', function: { name: 'search_sources' } } })).toBe(
      auto + 7 + name,
    );
    expect(toolsFor({ functionCall: 'none' })).toBe(auto + 1);
    expect(toolsFor({ functionCall: { name: 'search_sources' } })).toBe(auto + 4 + name);
  });

  it("counts 'required' like 'none' (no published count), and nothing without tools", () => {
    expect(toolsFor({ toolChoice: 'required' })).toBe(toolsFor({ toolChoice: 'none' }));
    expect(counter.count([user], { toolChoice: 'none' }).tools).toBe(0);
  });

  it('leaves the Anthropic and approximate formats as they were', () => {
    for (const tokenizer of ['anthropic:claude', 'chars/4']) {
      const other = createTokenCounter({ tokenizer });
      expect(other.count([user], { tools, toolChoice: { name: 'search_sources' } })).toEqual(
        other.count([user], { tools }),
      );
    }
  });

  it('rejects a choice of the wrong shape, naming the option and what it received', () => {
    const cases: [CountOptions, RegExp][] = [
      [
        { toolChoice: 'any' as never },
        /toolChoice must be 'auto', 'none', 'required' or .*received the string "any"/,
      ],
      [{ toolChoice: { function: { name: 'x' } } as never }, /received an object with keys \["function"\]/],
      [
        { functionCall: 'required' as never },
        /functionCall must be 'auto', 'none' or \{ name \}, received the string "required"/,
      ],
      [{ toolChoice: null as never }, /received null/],
      [{ toolChoice: 'none', functionCall: 'none' }, /give toolChoice or functionCall .* not both/],
      [
        { toolChoice: { name: 'nope' } },
        /names the tool "nope", which is not among the tools given \("search_sources"\)/,
      ],
    ];
    for (const [options, message] of cases) {
      const error = caughtError(() => counter.count([user], { tools, ...options }));
      expect(error).toMatchObject({ code: 'E_INVALID_OPTIONS', details: { where: 'count' } });
      expect((error as Error).message).toMatch(message);
    }
  });
});

describe('a system message beside tools (TOK-2)', () => {
  const counter = createTokenCounter({ tokenizer: 'openai:cl100k_base' });

  it('takes 4 off and adds the tokens of the newline that joins the definitions to it', () => {
    const alone = counter.count([user], { tools }).tools;
    // "Hello" + "\n" is one token more; "Hello:" + "\n" merges into the same count.
    expect(counter.count([system('Hello'), user], { tools }).tools).toBe(alone - 4 + 1);
    expect(counter.count([system('Hello:'), user], { tools }).tools).toBe(alone - 4);
    expect(counter.count([system('Hello\n'), user], { tools }).tools).toBe(alone - 4);
  });

  it('changes nothing without tools', () => {
    expect(counter.count([system('Hello'), user]).tools).toBe(0);
  });
});

describe('legacy function messages (TOK-2)', () => {
  const counter = createTokenCounter({ tokenizer: 'openai:cl100k_base' });

  it("count role 'function' and the function's name, as OpenAI does; a tool message does not", () => {
    const [legacy] = fromOpenAI([{ role: 'function', name: 'do_stuff', content: '{}' }]);
    const result = structuredClone(legacy as Message);
    // The same result without the legacy marker is an ordinary tool message.
    const part = result.parts[0] as Extract<Message['parts'][number], { type: 'tool-result' }>;
    const plain: Message = { ...result, parts: [{ ...part, providerMetadata: {} }] };
    const encode = (text: string) => counter.countText(text);
    expect(counter.countMessage(legacy as Message)).toBe(
      3 + encode('function') + 1 + encode('do_stuff') - 2 + encode('{}'),
    );
    expect(counter.countMessage(plain)).toBe(3 + encode('tool') + encode('{}'));
  });
});
