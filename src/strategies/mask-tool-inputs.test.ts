import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compact } from '../compaction/compact.ts';
import { importClaudeCode } from '../messages/claude-code.ts';
import type { Message, ToolCallPart } from '../messages/types.ts';
import { validate } from '../messages/validate.ts';
import { chatfoldMetadata } from '../projection/chatfold-metadata.ts';
import { recentFiles } from '../summarize/recent-files.ts';
import { createMockTokenCounter } from '../test/mock-token-counter.ts';
import { applyStrategy } from './apply-strategy.ts';
import { mask } from './mask.ts';
import { protectedIds } from './protect.ts';
import { groupUnits } from './tool-groups.ts';
import type { StrategyContext } from './types.ts';

// Issue 19 item 6: old tool-call inputs shrink (a Write's content, an Edit's old and new text)
// while the call stays valid: same id and name, JSON arguments, the path kept.

const fixture = new URL(
  '../../test/fixtures/claude-code/258c7280-ae70-4798-800f-63464d01a85d.jsonl',
  import.meta.url,
);
const session = importClaudeCode(readFileSync(fixture, 'utf8')).messages;
const counter = createMockTokenCounter();

function calls(messages: readonly Message[]): ToolCallPart[] {
  return messages.flatMap((message) => message.parts.filter((part) => part.type === 'tool-call'));
}

function contextFor(messages: readonly Message[], target: number): StrategyContext {
  return {
    counter,
    target,
    budget: target,
    reservedTokens: 0,
    protectedIds: protectedIds(messages, groupUnits(messages), { keepRecent: 6 }),
  };
}

/** Only inputs: outputs are never long enough to mask. */
const inputsOnly = { toolInputs: 'shrink', minChars: Number.POSITIVE_INFINITY, keepRecent: 2 } as const;

describe('mask({ toolInputs: "shrink" }) on a recorded Claude Code session', () => {
  const large = calls(session).filter(
    (call) => (call.name === 'Write' || call.name === 'Edit') && call.arguments.length > 2000,
  );

  it('replaces the large values of old Write and Edit calls, keeping each call valid', async () => {
    expect(large.length).toBeGreaterThan(5);
    const total = counter.count(session).total;
    // Low enough that every old call is shrunk (but reachable by shrinking alone).
    const result = await applyStrategy(mask(inputsOnly), session, contextFor(session, total - 20_000));
    expect(result.effect.notes.some((note) => note.startsWith('shrank the inputs of'))).toBe(true);
    const after = new Map(calls(result.messages).map((call) => [call.id, call]));
    let shrunk = 0;
    for (const before of large) {
      const call = after.get(before.id) as ToolCallPart;
      expect(call.name).toBe(before.name);
      const original = JSON.parse(before.arguments) as Record<string, unknown>;
      const args = JSON.parse(call.arguments) as Record<string, unknown>;
      expect(Object.keys(args)).toEqual(Object.keys(original));
      expect(args.file_path).toBe(original.file_path);
      if (call.arguments === before.arguments) continue;
      shrunk++;
      for (const key of ['content', 'old_string', 'new_string']) {
        const value = original[key];
        if (typeof value !== 'string' || value.length <= 300) continue;
        expect(args[key]).toBe(
          `[${key} omitted by chatfold: ${value.length.toLocaleString('en-US')} characters; the original is kept in the history as message ${result.messages.find((m) => m.parts.includes(call))?.id}]`,
        );
      }
    }
    expect(shrunk).toBeGreaterThan(5);
    // Structure untouched: same ids, roles and part kinds in the same order; results untouched.
    expect(result.messages.map((m) => [m.id, m.role, m.parts.map((p) => p.type)])).toEqual(
      session.map((m) => [m.id, m.role, m.parts.map((p) => p.type)]),
    );
    result.messages.forEach((message, index) => {
      if (message.role === 'tool') expect(message).toBe(session[index]);
    });
    expect(validate(result.messages, { provider: 'anthropic', allowPendingToolCalls: true })).toEqual([]);
  });

  it('leaves the newest calling messages and protected ones as they are, and stops at the target', async () => {
    const total = counter.count(session).total;
    const result = await applyStrategy(mask(inputsOnly), session, contextFor(session, total - 20_000));
    const callers = session.filter(
      (m) => m.role === 'assistant' && m.parts.some((p) => p.type === 'tool-call'),
    );
    for (const message of callers.slice(-2)) expect(result.messages).toContain(message);
    const context = contextFor(session, total - 20_000);
    for (const message of result.messages)
      if (context.protectedIds.has(message.id)) expect(session).toContain(message);
    // A target just below the total: one shrink is enough.
    const one = await applyStrategy(mask(inputsOnly), session, contextFor(session, total - 10));
    expect(one.effect.masked).toBe(1);
  });

  it('keeps the default: inputs stay unless asked', async () => {
    const total = counter.count(session).total;
    const result = await applyStrategy(
      mask({ minChars: Number.POSITIVE_INFINITY }),
      session,
      contextFor(session, total - 20_000),
    );
    expect(calls(result.messages)).toEqual(calls(session));
  });

  it('runs in a compaction pipeline through strategyOptions, accepted and valid', async () => {
    const head = session.slice(0, 200);
    const { messages, plan } = await compact(head, {
      window: 64_000,
      model: 'claude-sonnet-4.5',
      provider: 'anthropic',
      strategy: ['mask'],
      mode: 'manual',
      // Reachable by masking outputs and shrinking inputs (122k tokens down to 32k).
      target: 0.5,
      strategyOptions: { mask: { toolInputs: 'shrink', keepRecent: 4 } },
    });
    expect(plan.fallbacks).toEqual([]);
    expect(plan.stages.map((effect) => effect.stage)).toEqual(['mask']);
    const stage = plan.stages.find((effect) => effect.stage === 'mask');
    expect(stage?.notes.some((note) => note.startsWith('shrank the inputs of'))).toBe(true);
    const before = new Map(calls(head).map((call) => [call.id, call]));
    const shrunkWrites = calls(messages).filter(
      (call) => call.name === 'Write' && call.arguments !== before.get(call.id)?.arguments,
    );
    expect(shrunkWrites.length).toBeGreaterThan(0);
    expect(validate(messages, { provider: 'anthropic', allowPendingToolCalls: true })).toEqual([]);
    // A shrunk Write is no longer a source of the file's content for the summary's recent files.
    const shrunkIds = new Set(
      messages.filter((m) => chatfoldMetadata(m)?.transform === 'masked').map((m) => m.id),
    );
    for (const file of recentFiles(messages, { limit: 50 }))
      if (shrunkIds.has(file.messageId)) expect(file.content).toBeUndefined();
  });

  it('rejects an unknown toolInputs value, naming the option', () => {
    expect(() => mask({ toolInputs: true as never })).toThrow(
      expect.objectContaining({ code: 'E_INVALID_OPTIONS', details: { option: 'mask.toolInputs' } }),
    );
  });
});
