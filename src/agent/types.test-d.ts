// Type tests of chatfold/agent, as users import it: the event union front ends switch on.
import {
  type Agent,
  type AgentEvent,
  type AgentTool,
  createAgent,
  type DoneEvent,
  type DoneReason,
  type SummaryPreview,
  workspaceTools,
} from 'chatfold/agent';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';

declare const agent: Agent;

describe('chatfold/agent types', () => {
  it('createAgent takes a spec or an AI SDK model and resolves to an Agent', () => {
    expectTypeOf(createAgent).returns.resolves.toEqualTypeOf<Agent>();
    expectTypeOf(createAgent).toBeCallableWith({
      model: { provider: 'openai-compatible', name: 'qwen', baseURL: 'http://x' },
    });
    // @ts-expect-error: an unknown provider is a type error
    createAgent({ model: { provider: 'mistral', name: 'large' } });
  });

  it('run() and summarize() stream AgentEvents; narrowing on type gives each event its fields', () => {
    expectTypeOf(agent.run('hi')).toEqualTypeOf<AsyncIterable<AgentEvent>>();
    expectTypeOf(agent.summarize()).toEqualTypeOf<AsyncIterable<AgentEvent>>();
    expectTypeOf(agent.previewSummary()).resolves.toEqualTypeOf<SummaryPreview>();
    const event = {} as AgentEvent;
    if (event.type === 'text-delta') expectTypeOf(event.text).toEqualTypeOf<string>();
    if (event.type === 'tool-result') expectTypeOf(event.isError).toEqualTypeOf<boolean>();
    if (event.type === 'usage') expectTypeOf(event.inputTokens).toEqualTypeOf<number | undefined>();
    if (event.type === 'compaction-progress') expectTypeOf(event.delta).toEqualTypeOf<string | undefined>();
    if (event.type === 'done') expectTypeOf(event).toEqualTypeOf<DoneEvent>();
    expectTypeOf<DoneReason>().toEqualTypeOf<'stop' | 'aborted' | 'step-limit' | 'error'>();
  });

  it('a tool is a zod schema plus execute, its input typed from the schema', () => {
    const tool: AgentTool<{ city: string }> = {
      description: 'Weather for a city',
      inputSchema: z.object({ city: z.string() }),
      execute: (input) => `sunny in ${input.city}`,
    };
    expectTypeOf(tool.execute).parameter(0).toEqualTypeOf<{ city: string }>();
    expectTypeOf(workspaceTools).returns.toEqualTypeOf<Record<string, AgentTool<unknown>>>();
  });
});
