import fc from 'fast-check';
import { parse } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { shellTokens, splitShellCommand } from './shell-words.ts';

const reference = (text: string) => parse(text, () => ({ variable: true }));
/** The tokens, or the error's message (shell-quote throws on `${`). */
const outcome = (run: () => unknown): unknown => {
  try {
    return run();
  } catch (error) {
    return `throws ${(error as Error).message}`;
  }
};

describe('shellTokens: plain lines split without shell-quote', () => {
  it('equals shell-quote on common agent commands', () => {
    for (const line of [
      'ls -la src',
      'cd packages/core && npm test',
      'git status;git diff',
      'cat a.ts | head -n 20',
      'npm run build || exit 1',
      'a|||b',
      'FOO=bar node x.js',
      '',
      'ls   -la    src',
      'grep -rn "foo bar" src',
      "echo 'x' > out.txt",
      'ls $HOME',
      'ls *.ts',
      'cat ~/.bashrc',
      'ls # a comment',
      'npm test 2>&1 | tail -5',
      'bd show x 2>/dev/null; echo done',
      'make >> log',
    ]) {
      expect(shellTokens(line)).toEqual(reference(line));
    }
  });

  it('property: any line of the plain alphabet and joiners splits as shell-quote splits it', () => {
    const alphabet = fc.constantFrom(
      ...'abz09_-./:,@+=% &|;><'.split(''),
      '&&',
      '||',
      '  ',
      ' 2>&1',
      ' 2>/dev/null',
    );
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }), (chars) => {
        const line = chars.join('').trim();
        expect(shellTokens(line)).toEqual(reference(line));
      }),
      { numRuns: 3000 },
    );
  });

  it('property: any printable line gives the same structure as through shell-quote alone', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (line) => {
        const text = line.trim();
        expect(outcome(() => shellTokens(text))).toEqual(outcome(() => reference(text)));
      }),
      { numRuns: 2000 },
    );
  });

  it('still reads joiners and pipes', () => {
    expect(splitShellCommand('cd src && ls -la | head')).toEqual({
      kind: 'simple',
      pipelines: [
        { joinedBy: undefined, commands: [{ words: ['cd', 'src'], hidesErrors: false }] },
        {
          joinedBy: '&&',
          commands: [
            { words: ['ls', '-la'], hidesErrors: false },
            { words: ['head'], hidesErrors: false },
          ],
        },
      ],
    });
  });
});
