import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonValue, ToolDefinition } from '../messages/types.ts';
import { createTokenCounter } from './create-token-counter.ts';
import { renderFunctionNamespace } from './openai-tool-prompt.ts';

const tool = (parameters: { [key: string]: JsonValue }, description?: string): ToolDefinition => ({
  name: 'f',
  ...(description === undefined ? {} : { description }),
  parameters,
});

/** The body of the single function `f`, between `type f = ` and the namespace's end. */
const body = (parameters: { [key: string]: JsonValue }): string =>
  renderFunctionNamespace([tool(parameters)])
    .replace('namespace functions {\n\ntype f = ', '')
    .replace('\n\n} // namespace functions', '');

describe('renderFunctionNamespace (TOK-2)', () => {
  it('writes the namespace the published cases were counted against', () => {
    const weather: ToolDefinition = {
      name: 'get_weather',
      description: 'Get the weather',
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', description: 'The city' },
          unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
        },
        required: ['city'],
      },
    };
    expect(renderFunctionNamespace([weather, { name: 'ping', parameters: {} }])).toBe(
      [
        'namespace functions {',
        '',
        '// Get the weather',
        'type get_weather = (_: {',
        '// The city',
        'city: string,',
        'unit?: "celsius" | "fahrenheit",',
        '}) => any;',
        '',
        'type ping = () => any;',
        '',
        '} // namespace functions',
      ].join('\n'),
    );
  });

  it('recurses into nested objects and array items, dropping descriptions below the top level', () => {
    expect(
      body({
        type: 'object',
        properties: {
          items: {
            type: 'array',
            description: 'The items',
            items: {
              type: 'object',
              properties: { qty: { type: 'integer', enum: [1, 2], description: 'dropped' } },
              required: ['qty'],
            },
          },
        },
      }),
    ).toBe('(_: {\n// The items\nitems?: {\n  qty: 1 | 2,\n}[],\n}) => any;');
  });

  it('writes anyOf and oneOf as unions, ignores const, and reads unknown schemas as any', () => {
    expect(
      body({
        type: 'object',
        properties: {
          a: { anyOf: [{ type: 'string', const: 'x' }, { type: 'number' }] },
          b: { oneOf: [{ type: 'boolean' }, { type: 'null' }] },
          c: { type: ['string', 'null'] },
          d: { enum: ['on', 'off'] },
          e: { description: 'no type' },
          f: true,
          g: { type: 'array' },
        },
      }),
    ).toBe(
      '(_: {\na?: string | number,\nb?: boolean | null,\nc?: string | null,\nd?: "on" | "off",\n// no type\ne?: any,\nf?: any,\ng?: any[],\n}) => any;',
    );
  });

  it('never throws on any JSON parameters and names every property and top-level description', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<JsonValue>),
        fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>,
        (properties, extra) => {
          const text = renderFunctionNamespace([
            tool({ type: 'object', properties, required: extra, anyOf: extra, items: extra }),
          ]);
          for (const [name, schema] of Object.entries(properties)) {
            // `required: extra` may list it (then without the `?`).
            expect(text.includes(`${name}?: `) || text.includes(`${name}: `)).toBe(true);
            const description =
              typeof schema === 'object' && schema !== null && !Array.isArray(schema)
                ? schema.description
                : undefined;
            if (typeof description === 'string' && description !== '')
              expect(text).toContain(`// ${description}`);
          }
        },
      ),
    );
  });

  it('counts the same tools the same with a fresh counter (deterministic)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>),
        (properties) => {
          const tools = [tool({ type: 'object', properties }, 'A tool')];
          const first = createTokenCounter({ tokenizer: 'openai:o200k_base' }).count([], { tools });
          const again = createTokenCounter({ tokenizer: 'openai:o200k_base' }).count([], { tools });
          expect(again.tools).toBe(first.tools);
          expect(first.tools).toBeGreaterThan(9);
        },
      ),
      { numRuns: 50 },
    );
  });
});
