// The strict schema of createAgent's options must list exactly the keys of AgentOptions and
// AgentContextOptions: a key added to the types and not to the schema would be refused as
// unknown, one left in the schema would be accepted and ignored.
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { agentContextSchema, agentModelSpecSchema, agentOptionsSchema } from './agent-options-schema.ts';
import type { AgentContextOptions, AgentModelSpec, AgentOptions } from './types.ts';

describe('agent options schema', () => {
  it('has the keys of AgentOptions, AgentContextOptions and AgentModelSpec, no more, no less', () => {
    expectTypeOf<keyof z.infer<ReturnType<typeof agentOptionsSchema>>>().toEqualTypeOf<keyof AgentOptions>();
    expectTypeOf<keyof z.infer<typeof agentContextSchema>>().toEqualTypeOf<keyof AgentContextOptions>();
    expectTypeOf<keyof z.infer<typeof agentModelSpecSchema>>().toEqualTypeOf<keyof AgentModelSpec>();
  });
});
