import { readFileSync } from 'node:fs';
import { jsonSchema, tool, zodSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { caughtError } from '../../test/caught-error.ts';
import { countTokens } from '../../tokens/count-tokens.ts';
import { createTokenCounter } from '../../tokens/create-token-counter.ts';
import type { ToolDefinition } from '../types.ts';
import { toolsFromAiSdk } from './ai-sdk-tools.ts';
import { toolsFromAnthropic } from './anthropic-tools.ts';
import { toolsFromGemini } from './gemini-tools.ts';
import { toolsFromOpenAI } from './openai-tools.ts';
import { type ToolsInput, toToolDefinitions } from './to-tool-definitions.ts';

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../../../test/fixtures/tokens/${name}`, import.meta.url), 'utf8'));
const gemini = fixture('gemini-schedule-meeting.json') as {
  declaration: Required<ToolDefinition>;
  declarationWithTypeEnum: Required<ToolDefinition>;
};
const { name, description, parameters } = gemini.declaration;
const neutral: ToolDefinition = { name, description, parameters };

/** The documented declaration in every shape chatfold reads (TOK-2). */
const shapes: Record<string, ToolsInput> = {
  chatfold: [neutral],
  'OpenAI Chat Completions': [
    { type: 'function', function: { name, description, parameters, strict: false } },
  ],
  'OpenAI Responses': [{ type: 'function', name, description, parameters } as never],
  Anthropic: [{ name, description, input_schema: parameters, cache_control: { type: 'ephemeral' } }],
  'Gemini (JSON types)': [{ functionDeclarations: [gemini.declaration] }],
  'Gemini (Type enum)': [{ functionDeclarations: [gemini.declarationWithTypeEnum] }],
  'Gemini (parametersJsonSchema)': {
    functionDeclarations: [{ name, description, parametersJsonSchema: parameters }],
  },
  'AI SDK jsonSchema()': { schedule_meeting: tool({ description, inputSchema: jsonSchema(parameters) }) },
  'AI SDK plain JSON Schema': { schedule_meeting: { description, inputSchema: parameters } },
  'AI SDK 4 parameters': { schedule_meeting: { description, parameters: jsonSchema(parameters) } },
};

describe('tool definitions in the shapes people have (TOK-2)', () => {
  for (const [shape, tools] of Object.entries(shapes)) {
    it(`reads ${shape} as the neutral definition, counted the same`, () => {
      expect(toToolDefinitions(tools)).toEqual([neutral]);
      for (const model of ['gpt-4o', 'claude-sonnet-4-5']) {
        expect(countTokens([], { model, tools }).tools).toBe(
          countTokens([], { model, tools: [neutral] }).tools,
        );
      }
    });
  }

  it('reads a zod 4 schema as the AI SDK sends it (z.toJSONSchema, input side)', () => {
    const inputSchema = z.object({
      attendees: z.array(z.string()).describe('List of people attending the meeting.'),
      topic: z.string().describe('The subject or topic of the meeting.'),
      priority: z.enum(['low', 'high']).default('low'),
    });
    const [definition] = toolsFromAiSdk({ schedule_meeting: tool({ description, inputSchema }) });
    const sent = zodSchema(inputSchema).jsonSchema as ToolDefinition['parameters'];
    const counter = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    expect(definition?.parameters.properties).toEqual(sent.properties);
    expect(counter.count([], { tools: [definition as ToolDefinition] }).tools).toBe(
      counter.count([], { tools: [{ name, description, parameters: sent }] }).tools,
    );
  });

  it('counts provider and server tools by name, as the middleware does', () => {
    expect(
      toToolDefinitions([
        { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
        { type: 'custom', custom: { name: 'grammar', description: 'Free-form' } },
        { googleSearch: {} },
      ]),
    ).toEqual([
      { name: 'web_search', parameters: {} },
      { name: 'grammar', description: 'Free-form', parameters: {} },
      { name: 'googleSearch', parameters: {} },
    ]);
    expect(toolsFromAiSdk({ search: { type: 'provider', inputSchema: jsonSchema({}) } })).toEqual([
      { name: 'search', parameters: {} },
    ]);
  });

  it('has one converter per provider that reads that shape only', () => {
    const cookbook = fixture('openai-cookbook-tools.json').tools;
    expect(toolsFromOpenAI(cookbook)).toEqual([cookbook[0].function]);
    expect(toolsFromAnthropic([{ name, description, input_schema: parameters }])).toEqual([neutral]);
    expect(toolsFromGemini([{ functionDeclarations: [gemini.declarationWithTypeEnum] }])).toEqual([neutral]);
    expect(caughtError(() => toolsFromOpenAI([neutral as never]))).toMatchObject({
      code: 'E_INVALID_TOOLS',
      details: { where: 'tools[0]', index: 0 },
    });
    expect(
      caughtError(() => toolsFromAnthropic([{ type: 'function', function: neutral } as never])),
    ).toMatchObject({ code: 'E_INVALID_TOOLS', details: { where: 'tools[0]' } });
  });
});

describe('a wrong shape is E_INVALID_TOOLS naming where and what was expected (TOK-2)', () => {
  const cases: [string, unknown, RegExp][] = [
    [
      'a missing name',
      [{ parameters: {} }],
      /^tools\[0\]\.name: expected a non-empty string, received nothing$/,
    ],
    [
      'parameters that are a string',
      [{ name: 'a', parameters: 'object' }],
      /^tools\[0\]\.parameters: expected a JSON Schema object, received the string "object"$/,
    ],
    [
      'a nested function in the schema',
      [
        {
          type: 'function',
          function: { name: 'a', parameters: { properties: { x: { default: () => 1 } } } },
        },
      ],
      /^tools\[0\]\.function\.parameters\.properties\.x\.default: expected a JSON value, received a function$/,
    ],
    [
      'a zod schema given as parameters',
      [{ name: 'a', parameters: z.object({}) }],
      /^tools\[0\]\.parameters: expected a JSON Schema object \(a zod schema: pass the tools through toolsFromAiSdk/,
    ],
    ['a bare string', ['read_file'], /^tools\[0\]: expected a tool: \{ name, description\?, parameters \}/],
    ['one tool not in an array', { name: 'a', parameters: {} }, /this is one tool: put it in an array/],
    [
      'an AI SDK tool with a zod 3 schema',
      { a: { inputSchema: { _def: { typeName: 'ZodObject' }, parse() {} } } },
      /^tools\["a"\]\.inputSchema: .*zod 3 schema/,
    ],
    [
      'an AI SDK schema whose JSON Schema is a promise',
      { a: { inputSchema: jsonSchema(Promise.resolve({})) } },
      /counting is synchronous/,
    ],
    [
      'a Gemini tool with an unknown key',
      [{ functionDeclarations: [], fooSearch: {} }],
      /^tools\[0\]: expected a Gemini tool/,
    ],
    [
      'an AI SDK 7 description that is a function of the context',
      { a: tool({ description: () => 'later', inputSchema: jsonSchema({}) }) },
      /^tools\["a"\]\.description: expected a string \(this one is a function of the call's context/,
    ],
    ['a number', 42, /^tools: expected an array of tools/],
  ];
  for (const [label, tools, message] of cases) {
    it(`for ${label}`, () => {
      const error = caughtError(() => toToolDefinitions(tools as ToolsInput));
      expect(error).toMatchObject({ code: 'E_INVALID_TOOLS' });
      expect((error as Error).message).toMatch(message);
    });
  }

  it('from the counter itself, where it was a TypeError before', () => {
    const counter = createTokenCounter({ tokenizer: 'openai:o200k_base' });
    const error = caughtError(() =>
      counter.count([], { tools: [{ name: 'a' } as never, undefined as never] }),
    );
    expect(error).toMatchObject({ code: 'E_INVALID_TOOLS', details: { where: 'tools[1]', index: 1 } });
  });
});
