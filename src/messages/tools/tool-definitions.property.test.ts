import { jsonSchema } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { countTokens } from '../../tokens/count-tokens.ts';
import { createTokenCounter } from '../../tokens/create-token-counter.ts';
import type { JsonValue, ToolDefinition } from '../types.ts';
import { toolsFromAiSdk } from './ai-sdk-tools.ts';
import { toolsFromAnthropic } from './anthropic-tools.ts';
import { toolsFromGemini } from './gemini-tools.ts';
import { toolsFromOpenAI } from './openai-tools.ts';
import { type ToolsInput, toToolDefinitions } from './to-tool-definitions.ts';

type Schema = { [key: string]: JsonValue };

/** JSON Schemas of the kinds tool definitions use: scalars with enums, arrays, objects, anyOf. */
const { schema: schemaArbitrary } = fc.letrec<{ schema: Schema; object: Schema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record(
      {
        type: fc.constant('string'),
        description: fc.string(),
        enum: fc.array(fc.string(), { minLength: 1 }),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      { type: fc.constantFrom('number', 'integer'), enum: fc.array(fc.integer(), { minLength: 1 }) },
      { requiredKeys: ['type'] },
    ),
    fc.record({ type: fc.constantFrom('boolean', 'null') }),
    fc.record({ type: fc.constant('array'), items: tie('schema') }, { requiredKeys: ['type'] }),
    tie('object'),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
  ),
  object: fc
    .dictionary(fc.string({ minLength: 1, maxLength: 12 }), tie('schema'), { maxKeys: 4 })
    .chain((properties) =>
      fc.record(
        {
          type: fc.constant('object'),
          properties: fc.constant(properties),
          required: fc.subarray(Object.keys(properties)),
          description: fc.string(),
        },
        { requiredKeys: ['type', 'properties'] },
      ),
    ),
}));

const toolArbitrary = fc.record(
  {
    name: fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,15}$/),
    description: fc.string(),
    parameters: schemaArbitrary.filter((schema) => schema.type === 'object'),
  },
  { requiredKeys: ['name', 'parameters'] },
) as fc.Arbitrary<ToolDefinition>;
const toolsArbitrary = fc.uniqueArray(toolArbitrary, {
  minLength: 1,
  maxLength: 3,
  selector: (tool) => tool.name,
});

/** Gemini's SDK writes types as its `Type` enum: `OBJECT`, `STRING`… */
const withTypeEnum = (value: JsonValue): JsonValue =>
  Array.isArray(value)
    ? value.map(withTypeEnum)
    : typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype
      ? Object.fromEntries(
          Object.entries(value).map(([key, item]) => [
            key,
            key === 'type' && typeof item === 'string' ? item.toUpperCase() : withTypeEnum(item),
          ]),
        )
      : value;

const described = (tool: ToolDefinition) =>
  tool.description === undefined ? {} : { description: tool.description };

/** The same tools in every shape chatfold reads. */
function allShapes(tools: ToolDefinition[]): Record<string, ToolsInput> {
  return {
    openai: tools.map((tool) => ({ type: 'function' as const, function: tool })),
    anthropic: tools.map((tool) => ({ name: tool.name, ...described(tool), input_schema: tool.parameters })),
    gemini: [{ functionDeclarations: tools }],
    geminiTypeEnum: [
      {
        functionDeclarations: tools.map((tool) => ({
          ...tool,
          parameters: withTypeEnum(tool.parameters) as Schema,
        })),
      },
    ],
    geminiJsonSchema: {
      functionDeclarations: tools.map(({ parameters, ...rest }) => ({
        ...rest,
        parametersJsonSchema: parameters,
      })),
    },
    aiSdk: Object.fromEntries(
      tools.map((tool) => [tool.name, { ...described(tool), inputSchema: jsonSchema(tool.parameters) }]),
    ),
  };
}

/** Any value, also those JSON has no place for (functions, bigints, symbols, Maps, cycles…). */
const junkArbitrary = fc.oneof(
  fc.anything({
    withBigInt: true,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withSet: true,
    withNullPrototype: true,
    withSparseArray: true,
    withTypedArray: true,
  }),
  fc.func(fc.anything()),
  fc.constant(Symbol('junk')),
  fc.constant(Number.NaN),
  fc.constant(undefined),
  fc.bigInt(),
);

/** Values JSON has no place for. */
const nonJsonArbitrary = fc.oneof(
  fc.func(fc.anything()),
  fc.constant(Symbol('junk')),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY),
  fc.bigInt(),
  fc.date(),
  fc.constant(new Map([['type', 'string']])),
  fc.constant('cycle' as const),
);

const counters = ['openai:o200k_base', 'openai:cl100k_base', 'anthropic:claude', 'chars/4'].map((tokenizer) =>
  createTokenCounter({ tokenizer }),
);

describe('tool definitions (TOK-2, properties)', () => {
  it('count the same in every shape, and the same again', () => {
    fc.assert(
      fc.property(toolsArbitrary, (tools) => {
        const expected = counters.map((counter) => counter.count([], { tools }).tools);
        for (const [shape, input] of Object.entries(allShapes(tools))) {
          expect(toToolDefinitions(input), shape).toEqual(tools);
          const definitions = toToolDefinitions(input);
          expect(
            counters.map((counter) => counter.count([], { tools: definitions }).tools),
            shape,
          ).toEqual(expected);
        }
        const fresh = createTokenCounter({ tokenizer: 'openai:o200k_base' });
        expect(fresh.count([], { tools }).tools).toBe(expected[0]);
      }),
      { numRuns: 60 },
    );
  });

  /** Valid tools with one member anywhere replaced by any value. */
  const damaged = toolsArbitrary.chain((tools) =>
    fc
      .tuple(fc.constantFrom(...Object.values(allShapes(tools))), junkArbitrary, fc.nat(), fc.boolean())
      .map(([input, junk, pick, isCycle]) => {
        const copy = structuredClone(input as JsonValue);
        const holders: { [key: string]: JsonValue }[] = [];
        const walk = (value: JsonValue) => {
          if (typeof value !== 'object' || value === null) return;
          if (!Array.isArray(value)) holders.push(value);
          for (const item of Object.values(value)) walk(item);
        };
        walk(copy);
        const holder = holders[pick % holders.length] as { [key: string]: unknown };
        const keys = Object.keys(holder);
        holder[keys.length === 0 ? 'extra' : (keys[pick % keys.length] as string)] = isCycle ? holder : junk;
        return copy as unknown;
      }),
  );

  it('reject a value JSON cannot hold anywhere in a schema, in every shape', () => {
    fc.assert(
      fc.property(toolsArbitrary, nonJsonArbitrary, fc.nat(), (tools, junk, pick) => {
        // Every shape but the Type-enum copy shares the schema objects the damage goes into.
        const { geminiTypeEnum: _copy, ...shapes } = allShapes(tools);
        const holders: Schema[] = [];
        const walk = (value: JsonValue) => {
          if (typeof value !== 'object' || value === null) return;
          if (!Array.isArray(value)) holders.push(value);
          for (const item of Object.values(value)) walk(item);
        };
        for (const tool of tools) walk(tool.parameters);
        const holder = holders[pick % holders.length] as { [key: string]: unknown };
        const keys = Object.keys(holder);
        holder[keys[pick % keys.length] ?? 'extra'] = junk === 'cycle' ? holder : junk;
        for (const [shape, input] of Object.entries(shapes)) {
          expect(() => toToolDefinitions(input), shape).toThrowError(
            expect.objectContaining({ code: 'E_INVALID_TOOLS' }),
          );
        }
      }),
      { numRuns: 100 },
    );
  });

  it('reject anything else with E_INVALID_TOOLS only, from every entry point', () => {
    const entryPoints: ((input: unknown) => unknown)[] = [
      (input) => toToolDefinitions(input as ToolsInput),
      (input) => toolsFromOpenAI(input as never),
      (input) => toolsFromAnthropic(input as never),
      (input) => toolsFromGemini(input as never),
      (input) => toolsFromAiSdk(input as never),
      (input) => countTokens([], { model: 'gpt-4o', tools: input as ToolsInput }),
      (input) => counters[0]?.count([], { tools: input as ToolDefinition[] }),
    ];
    fc.assert(
      fc.property(fc.oneof(damaged, junkArbitrary, fc.array(junkArbitrary)), (input) => {
        for (const run of entryPoints) {
          try {
            run(input);
          } catch (error) {
            if (!ChatfoldError.hasCode(error, 'E_INVALID_TOOLS')) throw error;
            expect(error.details.where).toMatch(/^tools/);
            expect(error.message).toMatch(/expected .*, received |did not convert/);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
