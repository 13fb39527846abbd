import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent } from '../../agent/types.ts';
import { createEventRenderer, SPINNER_MS } from './render-events.ts';
import { createStyle, type Terminal } from './terminal.ts';

/** A terminal that records what was written, as one screen string (notices and answers). */
function recordingTerminal(isInteractive: boolean): Terminal & { readonly output: string[] } {
  const output: string[] = [];
  return {
    output,
    write: (text) => output.push(text),
    notice: (text) => output.push(text),
    isInteractive,
    style: createStyle(false),
  };
}

/** The last redraw of the live line: what follows the last `\r\x1b[K`. */
const liveLine = (output: readonly string[]): string => output.join('').split('\r\u001b[K').at(-1) ?? '';

const stepStart: AgentEvent = { type: 'step-start', step: 0, promptMessages: 2, promptTokens: 40 };

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('the waiting line (spinner with elapsed time)', () => {
  it('shows while the model has not answered, counting seconds, and goes when the answer starts', () => {
    const terminal = recordingTerminal(true);
    const renderer = createEventRenderer(terminal);
    renderer.handle(stepStart);
    expect(liveLine(terminal.output)).toBe('  waiting for the model ⠋ 0 s');
    vi.advanceTimersByTime(2_000 + SPINNER_MS);
    expect(liveLine(terminal.output)).toBe('  waiting for the model ⠙ 2 s');
    vi.advanceTimersByTime(10_000);
    expect(liveLine(terminal.output)).toMatch(/^ {2}waiting for the model . 12 s$/);
    renderer.handle({ type: 'text-delta', step: 0, text: 'Hello' });
    expect(terminal.output.join('').endsWith('\r\u001b[KHello')).toBe(true);
    const drawn = terminal.output.length;
    vi.advanceTimersByTime(5_000);
    expect(terminal.output.length).toBe(drawn); // no redraw after the answer started
    renderer.handle({
      type: 'done',
      reason: 'stop',
      steps: 1,
      text: 'Hello',
      usage: { inputTokens: 1, outputTokens: 1 },
    });
    expect(renderer.finish()?.reason).toBe('stop');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('says "thinking" while the model streams reasoning, keeping the count', () => {
    const terminal = recordingTerminal(true);
    const renderer = createEventRenderer(terminal);
    renderer.handle(stepStart);
    vi.advanceTimersByTime(3_000);
    renderer.handle({ type: 'reasoning-delta', step: 0, text: 'hmm' });
    expect(liveLine(terminal.output)).toMatch(/^ {2}thinking . 3 s$/);
    renderer.handle({ type: 'tool-call', step: 0, callId: 'c1', toolName: 'read_file', input: {} });
    expect(liveLine(terminal.output)).toBe('');
    renderer.finish();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a compaction shows its own line with the seconds it has taken, the summary’s progress included', () => {
    const terminal = recordingTerminal(true);
    const renderer = createEventRenderer(terminal);
    renderer.handle({ type: 'compaction-start', mode: 'auto', tokens: 9000, target: 4000, messages: 30 });
    vi.advanceTimersByTime(4_000);
    expect(liveLine(terminal.output)).toMatch(
      /^ {2}⟳ compacting history \(auto: 30 messages, 9,000 tokens → target 4,000\)… . 4 s$/,
    );
    renderer.handle({ type: 'compaction-progress', stage: 'summarize', delta: 'The user…' });
    vi.advanceTimersByTime(1_000);
    expect(liveLine(terminal.output)).toMatch(/^ {2}⟳ summarizing… 9 characters . 5 s$/);
    renderer.finish();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('no waiting line when the output is not a terminal (--print, piped)', () => {
    const terminal = recordingTerminal(false);
    const renderer = createEventRenderer(terminal);
    renderer.handle(stepStart);
    vi.advanceTimersByTime(5_000);
    expect(terminal.output).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
