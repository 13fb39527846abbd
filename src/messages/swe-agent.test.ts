import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromOpenAI } from './openai.ts';
import { fromSweAgentTrajectory } from './swe-agent.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../test/fixtures/swe-agent/${name}`, import.meta.url), 'utf8'));

describe('fromSweAgentTrajectory (MSG-2)', () => {
  it('reads a real trajectory into the same messages as its OpenAI history', () => {
    const now = () => new Date('2026-01-01T00:00:00Z');
    const fromTraj = fromSweAgentTrajectory(fixture('marshmallow-1867.function-calling.traj') as never, {
      now,
    });
    const fromHistory = fromOpenAI(fixture('marshmallow-1867.function-calling.openai.json') as never, {
      now,
    });
    expect(fromTraj).toHaveLength(28);
    expect(fromTraj).toEqual(fromHistory);
  });

  it('turns an observation answering several calls into one tool message per call', () => {
    const messages = fromSweAgentTrajectory({
      history: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } },
            { id: 'b', type: 'function', function: { name: 'bash', arguments: '{"command":"pwd"}' } },
          ],
        },
        { role: 'tool', content: 'out', tool_call_ids: ['a', 'b'], message_type: 'observation' },
      ],
    });
    expect(messages.filter((m) => m.role === 'tool')).toHaveLength(2);
  });

  it('names what it expected for something that is not a trajectory', () => {
    expect(() => fromSweAgentTrajectory({ trajectory: [] } as never)).toThrow(
      /SWE-agent trajectory: expected \{ history: \[\.\.\.\] \}, received object/,
    );
    expect(() => fromSweAgentTrajectory({ history: [3] } as never)).toThrow(
      /history\[0\]: expected a message object/,
    );
  });
});
