// NFR-7.5: the yield that paged reads and sliced counts use between two steps.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { yieldToEventLoop } from './yield-to-event-loop.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('yieldToEventLoop', () => {
  it('settles after the callbacks queued before it had their turn', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('queued first'));
    await yieldToEventLoop();
    order.push('after yield');
    expect(order).toEqual(['queued first', 'after yield']);
  });

  it('still settles when a test installed fake timers after loading it', async () => {
    vi.useFakeTimers({ toFake: ['setImmediate', 'setTimeout', 'performance', 'Date'] });
    expect(vi.isFakeTimers()).toBe(true);
    // Nothing advances the fake clock: only a real turn of the event loop settles this.
    await expect(yieldToEventLoop()).resolves.toBeUndefined();
  });
});
