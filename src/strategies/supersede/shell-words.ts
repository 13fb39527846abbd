import { parse } from 'shell-quote';

/** One program call: its words, and whether its output was redirected away from the result. */
export interface SimpleCommand {
  readonly words: readonly string[];
  /** `2>/dev/null`: error messages were discarded, so an empty output may be a failure. */
  readonly hidesErrors: boolean;
}

/** Commands joined by `|`, and the operator that joins this pipeline to the previous one. */
export interface Pipeline {
  readonly joinedBy: '&&' | '||' | ';' | undefined;
  readonly commands: readonly SimpleCommand[];
}

/** What {@link splitShellCommand} makes of a command line. */
export type ShellStructure =
  | { readonly kind: 'simple'; readonly pipelines: readonly Pipeline[] }
  /**
   * Something this reader does not follow (variables, substitutions, subshells, heredocs,
   * globs, backgrounding, output written to files, several lines): `words` still lists the
   * plain words so callers can notice a `cd`.
   */
  | { readonly kind: 'opaque'; readonly words: readonly string[] };

const VARIABLE = { variable: true } as const;
const JOINERS = new Set(['&&', '||', ';']);

type Token = ReturnType<typeof parse>[number] | typeof VARIABLE;

/**
 * Command lines made only of plain words (letters, digits, `_-./:,@+=%`), spaces, the joiners
 * `&&`, `||`, `|`, `;` and the redirections `>` and `>&` (never two operator characters in a
 * row beyond these: `;;`, `|&`, `>>` are other operators) mean the same to every POSIX shell:
 * no quoting, expansion or globbing can occur. shell-quote builds its regular expressions on
 * every call (a quarter of a first compaction's time on agent sessions), so these lines are
 * split here; a property test checks the result equals shell-quote's for any line of this
 * alphabet and for arbitrary text.
 */
const PLAIN_LINE = /^[\w\-./:,@+=% ]*(?:(?:&&|\|\||\||;|>&|>)(?![&|;<>])[\w\-./:,@+=% ]*)*$/;
const PLAIN_TOKEN = /&&|\|\||\||;|>&|>|[^\s&|;>]+/g;
const OPERATORS = new Set(['&&', '||', '|', ';', '>&', '>']);

/** shell-quote's tokens for a line (plain lines split without it, see {@link PLAIN_LINE}). */
export function shellTokens(text: string): Token[] {
  if (!PLAIN_LINE.test(text)) return parse(text, () => VARIABLE) as Token[];
  const tokens: Token[] = [];
  for (const [token] of text.matchAll(PLAIN_TOKEN)) tokens.push(OPERATORS.has(token) ? { op: token } : token);
  return tokens;
}

function opaque(tokens: readonly Token[]): ShellStructure {
  return { kind: 'opaque', words: tokens.filter((token): token is string => typeof token === 'string') };
}

/**
 * Splits a shell command line into pipelines of plain word lists with `shell-quote` (quotes
 * and escapes as a POSIX shell reads them). Only what is certain comes back `simple`:
 * `&&`, `||`, `;`, `|`, `2>&1` and `2>/dev/null` are understood; anything else that could
 * change what a word means or where output goes makes the whole line `opaque` — a wrong
 * reading would stub an output that was still current (STR-1: when unsure, don't supersede).
 *
 * @param command - the command text a shell tool ran
 */
export function splitShellCommand(command: string): ShellStructure {
  const text = command.trim();
  let tokens: Token[];
  try {
    tokens = shellTokens(text);
  } catch {
    return { kind: 'opaque', words: [] };
  }
  // shell-quote reads a newline as a space; a multi-line script is not one command line.
  if (text.includes('\n') || text.includes('`')) return opaque(tokens);
  const pipelines: Pipeline[] = [];
  let commands: SimpleCommand[] = [];
  let words: string[] = [];
  let hidesErrors = false;
  let joinedBy: Pipeline['joinedBy'];
  const endCommand = (): boolean => {
    if (words.length === 0) return false;
    commands.push({ words, hidesErrors });
    words = [];
    hidesErrors = false;
    return true;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (typeof token === 'string') {
      words.push(token);
      continue;
    }
    if ('comment' in token) continue;
    if (!('op' in token)) return opaque(tokens);
    const { op } = token;
    if (op === '|') {
      if (!endCommand()) return opaque(tokens);
    } else if (JOINERS.has(op)) {
      if (!endCommand()) return opaque(tokens);
      pipelines.push({ joinedBy, commands });
      commands = [];
      joinedBy = op as Pipeline['joinedBy'];
    } else if (op === '>&' || op === '>') {
      // `2>&1` and `2>/dev/null` keep the result meaningful; `> file` sends it elsewhere.
      const target = tokens[i + 1];
      const fd = words.at(-1);
      if (fd !== '2' || typeof target !== 'string') return opaque(tokens);
      if (op === '>&' ? target !== '1' : target !== '/dev/null') return opaque(tokens);
      if (op === '>') hidesErrors = true;
      words.pop();
      i++;
    } else {
      return opaque(tokens);
    }
  }
  if (endCommand()) pipelines.push({ joinedBy, commands });
  else if (commands.length > 0) return opaque(tokens);
  return pipelines.length === 0 ? opaque(tokens) : { kind: 'simple', pipelines };
}
