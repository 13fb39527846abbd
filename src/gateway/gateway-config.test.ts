import { describe, expect, it } from 'vitest';
import { ChatfoldError } from '../errors/chatfold-error.ts';
import { parseGatewayConfig, profileFor } from './gateway-config.ts';

function problems(text: string): string[] {
  try {
    parseGatewayConfig(text, 'gateway.yaml');
  } catch (error) {
    expect(ChatfoldError.hasCode(error, 'E_INVALID_OPTIONS')).toBe(true);
    return ((error as ChatfoldError).details as { problems: { message: string }[] }).problems.map(
      (problem) => problem.message,
    );
  }
  return [];
}

describe('the gateway config file', () => {
  it('reads upstream, window and policy per model and route', () => {
    const config = parseGatewayConfig(
      [
        'upstream: http://127.0.0.1:11434/v1',
        'window: 32000',
        'policy: default',
        'models:',
        '  qwen3:8b: { window: 40960, policy: local-summarization }',
        '  "llama3*": { window: 128000 }',
        'routes:',
        '  agents:',
        '    policy: { preset: agent-summarize, overrides: { target: { fraction: 0.5 } } }',
      ].join('\n'),
      'gateway.yaml',
    );
    expect(profileFor(config, 'qwen3:8b', undefined)).toEqual({
      window: 40960,
      policy: 'local-summarization',
    });
    expect(profileFor(config, 'llama3.1:8b', undefined)).toEqual({ window: 128000, policy: 'default' });
    expect(profileFor(config, 'other', undefined)).toEqual({ window: 32000, policy: 'default' });
    expect(profileFor(config, 'qwen3:8b', 'agents')).toEqual({
      window: 40960,
      policy: { preset: 'agent-summarize', overrides: { target: { fraction: 0.5 } } },
    });
  });

  it('names file, line, column and key of every mistake', () => {
    expect(
      problems(
        [
          'upstream: ftp://example',
          'windw: 100',
          'models:',
          '  a: { window: -5 }',
          'routes:',
          '  b: { policy: chat-ap }',
        ].join('\n'),
      ),
    ).toEqual([
      expect.stringMatching(
        /^gateway\.yaml:1:11 upstream: expected an http:\/\/ or https:\/\/ base URL.*, received "ftp:\/\/example"$/,
      ),
      expect.stringMatching(/^gateway\.yaml:2:1 windw: unknown key; expected one of .*window/),
      'gateway.yaml:4:16 models.a.window: expected a positive integer, received -5',
    ]);
    // Policies are checked once the shape is right.
    expect(problems('routes:\n  b: { policy: chat-ap }')).toEqual([
      expect.stringMatching(/^gateway\.yaml:2:16 routes\.b\.policy: .*chat-ap/),
    ]);
    expect(problems('window: [1\n')).toEqual([expect.stringMatching(/^gateway\.yaml:\d+:\d+ invalid YAML/)]);
  });
});
