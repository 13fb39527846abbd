import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromOpenAI } from '../../src/messages/openai.ts';
import type { OpenAIMessage } from '../../src/messages/openai-schema.ts';
import type { JsonValue, ToolDefinition } from '../../src/messages/types.ts';
import { createTokenCounter } from '../../src/tokens/create-token-counter.ts';
import type { CountOptions, FunctionCallChoice, ToolChoice } from '../../src/tokens/types.ts';

/**
 * Every published OpenAI prompt count chatfold's tool formula is built on (TOK-2), counted
 * from the request as it was sent: messages through `fromOpenAI`, definitions as neutral tools,
 * `tool_choice` / legacy `function_call` as count options. Sources, commits and licences:
 * test/fixtures/tokens/SOURCES.md.
 */
interface FunctionDefinition {
  name: string;
  description?: string;
  parameters?: { [key: string]: JsonValue };
}
interface PublishedCase {
  source: 'openai-chat-tokens' | 'gpt-tokenizer' | 'openai-messages-token-helper';
  index: number;
  name?: string;
  messages: OpenAIMessage[];
  functions?: FunctionDefinition[];
  function_call?: FunctionCallChoice;
  tools?: { type: 'function'; function: FunctionDefinition }[];
  tool_choice?: ToolChoice;
  promptTokens: number;
}
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/tokens/openai-published-cases.json', import.meta.url), 'utf8'),
) as {
  sources: Record<PublishedCase['source'], { tokenizer: string; model: string }>;
  cases: PublishedCase[];
};

/**
 * Published counts chatfold does not reproduce, with the difference (chatfold − published).
 * All eight come from one Azure gpt-35-turbo deployment queried with `tools`, which renders
 * definitions differently from the gpt-3.5-turbo and gpt-4o sets:
 * - a description of a nested property reaches its prompt (the two −7 cases: "Description in a
 *   second object is lost" is 7 tokens), while the gpt-3.5-turbo and gpt-4o sets are exact only
 *   without nested descriptions (description5..8 in case 35 would add 20 tokens);
 * - a property without a description costs one token less there than the layout that fits the
 *   other sets (the six +1/+2 cases; the same request with the description is exact).
 * No one layout fits all three sources; chatfold keeps the one that fits the 68 gpt-3.5-turbo
 * and gpt-4o cases. So a nested description may be counted short on such deployments.
 */
const KNOWN_DIFFERENCES: Readonly<Record<string, number>> = {
  inner_object: 2,
  inner_object_and_string: -7,
  inner_object_with_enum_only: 1,
  inner_object_with_enum: -7,
  integer_enum: 1,
  integer_enum_tool_choice_name: 1,
  no_parameter_description_or_required: 1,
  no_parameter_description: 1,
};

const neutral = (definition: FunctionDefinition): ToolDefinition => ({
  name: definition.name,
  ...(definition.description === undefined ? {} : { description: definition.description }),
  parameters: definition.parameters ?? {},
});

function countOptions(request: PublishedCase): CountOptions {
  const tools = [...(request.functions ?? []), ...(request.tools ?? []).map((tool) => tool.function)];
  return {
    ...(tools.length === 0 ? {} : { tools: tools.map(neutral) }),
    ...(request.tool_choice === undefined ? {} : { toolChoice: request.tool_choice }),
    ...(request.function_call === undefined ? {} : { functionCall: request.function_call }),
  };
}

const counters = new Map<string, ReturnType<typeof createTokenCounter>>();
const count = (request: PublishedCase): number => {
  const { tokenizer } = fixture.sources[request.source];
  let counter = counters.get(tokenizer);
  if (counter === undefined) {
    counter = createTokenCounter({ tokenizer });
    counters.set(tokenizer, counter);
  }
  return counter.count(fromOpenAI(request.messages), countOptions(request)).total;
};

describe('published OpenAI prompt counts with function definitions (TOK-2)', () => {
  for (const source of Object.keys(fixture.sources) as PublishedCase['source'][]) {
    const { model, tokenizer } = fixture.sources[source];
    describe(`${source} (${model}, ${tokenizer})`, () => {
      for (const request of fixture.cases.filter((c) => c.source === source)) {
        const label = `${request.name ?? `case ${request.index}`}: ${request.promptTokens} tokens`;
        const known = request.name === undefined ? undefined : KNOWN_DIFFERENCES[request.name];
        if (known === undefined) {
          it(`counts ${label} exactly`, () => {
            expect(count(request)).toBe(request.promptTokens);
          });
        } else {
          it(`counts ${label} ${known > 0 ? '+' : ''}${known} (a known difference, see KNOWN_DIFFERENCES)`, () => {
            expect(count(request) - request.promptTokens).toBe(known);
          });
        }
      }
    });
  }

  it('is exact on all 68 gpt-3.5-turbo and gpt-4o cases and on 78 of all 86', () => {
    const exact = (cases: PublishedCase[]) => cases.filter((c) => count(c) === c.promptTokens).length;
    const main = fixture.cases.filter((c) => c.source !== 'openai-messages-token-helper');
    expect(main).toHaveLength(68);
    expect(exact(main)).toBe(68);
    expect(fixture.cases).toHaveLength(86);
    expect(exact(fixture.cases)).toBe(86 - Object.keys(KNOWN_DIFFERENCES).length);
  });
});
