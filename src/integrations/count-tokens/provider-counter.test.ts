import { describe, expect, it } from 'vitest';
import { buildConversation } from '../../test/build-conversation.ts';
import { counterFor } from '../../tokens/count-tokens.ts';
import { type CountFallback, createProviderTokenCounter, type ProviderCount } from './provider-counter.ts';

const messages = buildConversation().system('Be brief.').user('How many tokens is this?').build();
const fallback = counterFor('anthropic:claude');

function recording(answer: (call: number, signal: AbortSignal) => Promise<number>) {
  const calls: { messages: number; tools: number }[] = [];
  const request: ProviderCount = (m, tools, signal) => {
    calls.push({ messages: m.length, tools: tools.length });
    return answer(calls.length, signal);
  };
  return { calls, request };
}

describe('createProviderTokenCounter (TOK-4)', () => {
  it('reports the provider total as exact and spreads it over messages in proportion', async () => {
    const { request } = recording(async () => 1000);
    const counter = createProviderTokenCounter('test:count', request, { model: 'm', fallback });
    const estimate = fallback.count(messages);
    const result = await counter.countExact?.(messages);
    expect(result).toMatchObject({ total: 1000, accuracy: 'exact', tokenizer: 'test:count' });
    expect(result?.perMessage).toEqual(
      estimate.perMessage.map((n) => Math.round((n * 1000) / estimate.total)),
    );
    // The synchronous methods are the local estimate.
    expect(counter.count(messages)).toEqual(estimate);
    expect(counter.accuracy).toBe('calibrated');
  });

  it('caches by content (model, roles, parts, tools), not by object identity', async () => {
    const { calls, request } = recording(async (n) => 100 + n);
    const counter = createProviderTokenCounter('test:count', request, { model: 'm', fallback });
    expect((await counter.countExact?.(messages))?.total).toBe(101);
    expect((await counter.countExact?.(structuredClone(messages)))?.total).toBe(101);
    const tools = [{ name: 'read', parameters: { type: 'object' } }];
    expect((await counter.countExact?.(messages, { tools }))?.total).toBe(102);
    const edited = structuredClone(messages);
    edited[1] = { ...edited[1], parts: [{ type: 'text', text: 'Different.' }] } as (typeof edited)[1];
    expect((await counter.countExact?.(edited))?.total).toBe(103);
    expect(calls).toEqual([
      { messages: 2, tools: 0 },
      { messages: 2, tools: 1 },
      { messages: 2, tools: 0 },
    ]);
  });

  it('shares one request between concurrent identical counts and evicts the oldest beyond cacheSize', async () => {
    let release: (n: number) => void = () => {};
    const { calls, request } = recording(() => new Promise<number>((resolve) => (release = resolve)));
    const counter = createProviderTokenCounter('test:count', request, { model: 'm', fallback, cacheSize: 1 });
    const both = Promise.all([counter.countExact?.(messages), counter.countExact?.(messages)]);
    release(55);
    expect((await both).map((r) => r?.total)).toEqual([55, 55]);
    expect(calls).toHaveLength(1);
  });

  it('falls back on failure, timeout or a nonsense total, reporting reason and accuracy', async () => {
    const fallbacks: CountFallback[] = [];
    const onFallback = (f: CountFallback) => fallbacks.push(f);
    const failing = createProviderTokenCounter(
      't',
      async () => Promise.reject(new Error('503 unavailable')),
      {
        model: 'm',
        fallback,
        onFallback,
      },
    );
    expect(await failing.countExact?.(messages)).toEqual(fallback.count(messages));
    const slow = createProviderTokenCounter(
      't',
      (_m, _t, signal) =>
        new Promise<number>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
      { model: 'm', fallback, onFallback, timeoutMs: 20 },
    );
    expect((await slow.countExact?.(messages))?.accuracy).toBe('calibrated');
    const nonsense = createProviderTokenCounter('t', async () => -3, { model: 'm', fallback, onFallback });
    expect((await nonsense.countExact?.(messages))?.accuracy).toBe('calibrated');
    expect(fallbacks.map(({ reason, model, accuracy }) => ({ reason, model, accuracy }))).toEqual([
      { reason: '503 unavailable', model: 'm', accuracy: 'calibrated' },
      { reason: 'timed out after 20 ms', model: 'm', accuracy: 'calibrated' },
      { reason: 'the provider returned -3 input tokens', model: 'm', accuracy: 'calibrated' },
    ]);
  });

  it("rejects when the caller's own signal aborts (no silent fallback)", async () => {
    const fallbacks: CountFallback[] = [];
    const counter = createProviderTokenCounter('t', () => new Promise<number>(() => {}), {
      model: 'm',
      fallback,
      onFallback: (f) => fallbacks.push(f),
    });
    const controller = new AbortController();
    const pending = counter.countExact?.(messages, { signal: controller.signal });
    controller.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
    await expect(counter.countExact?.(messages, { signal: AbortSignal.abort() })).rejects.toThrow();
    expect(fallbacks).toEqual([]);
  });
});
