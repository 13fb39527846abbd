import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedactor, secretsFromEnvironment } from './redact.ts';

describe('createRedactor (WEB-8)', () => {
  it('hides every configured secret, longest first, and leaves other text alone', () => {
    const redact = createRedactor(['sk-live-abcdefgh', 'sk-live-abcdefgh-extended', undefined, 'short']);
    expect(redact('key sk-live-abcdefgh-extended and sk-live-abcdefgh')).toBe(
      'key [redacted] and [redacted]',
    );
    expect(redact('a short word')).toBe('a short word'); // under 8 characters: not treated as a secret
  });

  it('never lets a secret through, wherever it sits in the text', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 8, maxLength: 40 }),
        fc.string(),
        fc.string(),
        (secret, before, after) => {
          expect(createRedactor([secret])(`${before}${secret}${after}`)).not.toContain(secret);
        },
      ),
    );
  });

  it('reads provider keys and the access token from the environment', () => {
    expect(
      secretsFromEnvironment({
        OPENAI_API_KEY: 'sk-1',
        CHATFOLD_TOKEN: 'tok',
        PATH: '/usr/bin',
        HOME: '/root',
      }),
    ).toEqual(['sk-1', 'tok']);
  });
});
