import type { CallEffect, ListingFeature } from './call-effect.ts';
import { joinPath, normalizePath } from './path-key.ts';

/**
 * Where a shell command runs: `directory` is a path key (`'.'` = the conversation's working
 * directory, relative keys below it, an absolute path, or undefined when unknown) and `cwd`
 * the working directory itself when the caller knows it (to turn absolute paths into keys).
 */
export interface ShellLocation {
  readonly directory: string | undefined;
  readonly cwd: string | undefined;
}

/** The path key of a command-line operand, or undefined when it cannot be known. */
export function resolveOperand(word: string, { directory, cwd }: ShellLocation): string | undefined {
  if (word === '-' || word.startsWith('-')) return undefined;
  if (word.startsWith('/')) return normalizePath(word, cwd);
  if (directory === undefined) return undefined;
  const joined = normalizePath(word) === undefined ? undefined : joinPath(directory, word);
  return joined === undefined ? undefined : normalizePath(joined, cwd);
}

/** `cat [-n] FILE`: the whole file. */
function cat(args: readonly string[], at: ShellLocation): CallEffect | undefined {
  const operands = args.filter((arg) => arg !== '-n' && arg !== '--number');
  if (operands.length !== 1) return undefined;
  const path = resolveOperand(operands[0] as string, at);
  return path === undefined ? undefined : { kind: 'read', path };
}

/**
 * `head`/`tail` with `-n N`, `-nN`, `-N`, `--lines=N`, `-n +N` or `-c N` and one file. Ranges
 * are spelled like `sed -n` ones where they mean the same lines (`head -20` = `lines 1-20`).
 */
function headOrTail(program: 'head' | 'tail', args: readonly string[], at: ShellLocation) {
  let count = '10';
  let unit: 'lines' | 'bytes' = 'lines';
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    let value: string | undefined;
    if (arg === '-n' || arg === '-c' || arg === '--lines' || arg === '--bytes') value = args[++i];
    else if (/^-[nc].+/.test(arg)) value = arg.slice(2);
    else if (/^--(lines|bytes)=/.test(arg)) value = arg.slice(arg.indexOf('=') + 1);
    else if (/^-\d+$/.test(arg)) value = arg.slice(1);
    else if (arg === '-q' || arg === '-v') continue;
    else if (arg.startsWith('-'))
      return undefined; // -f (follow) and anything unknown
    else {
      operands.push(arg);
      continue;
    }
    if (value === undefined || !/^\+?\d+$/.test(value)) return undefined;
    count = value;
    unit = arg.startsWith('-c') || arg.startsWith('--bytes') ? 'bytes' : 'lines';
  }
  if (operands.length !== 1) return undefined;
  const path = resolveOperand(operands[0] as string, at);
  if (path === undefined) return undefined;
  const from = count.startsWith('+') ? count.slice(1) : undefined;
  let range: string;
  if (program === 'head') range = unit === 'lines' ? `lines 1-${count}` : `first ${count} bytes`;
  else if (from !== undefined) range = unit === 'lines' ? `lines ${from}-$` : `bytes ${from}-$`;
  else range = `last ${count} ${unit}`;
  return { kind: 'read', path, range } as const;
}

/** `sed -n 'A,Bp' FILE` (and `Ap`, `A,$p`): lines A to B. */
function sed(args: readonly string[], at: ShellLocation): CallEffect | undefined {
  if (args.length !== 3 || args[0] !== '-n') return undefined;
  const match = /^(\d+)(?:,(\d+|\$))?p$/.exec(args[1] as string);
  const path = resolveOperand(args[2] as string, at);
  if (match === null || path === undefined) return undefined;
  return { kind: 'read', path, range: `lines ${match[1]}-${match[2] ?? match[1]}` };
}

/** Flags of `ls` that change what it shows, and the ones that only change layout. */
const LS_FEATURES: Readonly<Record<string, ListingFeature | 'layout'>> = {
  a: 'hidden',
  A: 'hidden',
  R: 'recursive',
  l: 'details',
  g: 'details',
  o: 'details',
  n: 'details',
  F: 'types',
  p: 'types',
  '1': 'layout',
  C: 'layout',
  x: 'layout',
  h: 'layout',
  k: 'layout',
  G: 'layout',
};
const LS_LONG: Readonly<Record<string, ListingFeature | 'layout'>> = {
  '--all': 'hidden',
  '--almost-all': 'hidden',
  '--recursive': 'recursive',
  '--classify': 'types',
  '--human-readable': 'layout',
  '--color': 'layout',
};

/** `ls [flags] [DIR]`: sort orders, `-d` and unknown flags are not followed. */
function ls(args: readonly string[], at: ShellLocation): CallEffect | undefined {
  const shows = new Set<ListingFeature>();
  const operands: string[] = [];
  for (const arg of args) {
    if (!arg.startsWith('-') || arg === '-') {
      operands.push(arg);
      continue;
    }
    const features = arg.startsWith('--')
      ? [LS_LONG[arg.split('=')[0] as string]]
      : [...arg.slice(1)].map((flag) => LS_FEATURES[flag]);
    for (const feature of features) {
      if (feature === undefined) return undefined;
      if (feature !== 'layout') shows.add(feature);
    }
  }
  // A long listing shows each entry's type too.
  if (shows.has('details')) shows.add('types');
  if (operands.length > 1) return undefined;
  const path = resolveOperand(operands[0] ?? '.', at);
  return path === undefined ? undefined : { kind: 'list', path, shows: [...shows].sort() };
}

/** `find` words that act on files or print something other than their paths. */
export const FIND_NOT_A_LISTING = /^-(exec|execdir|ok|okdir|delete|fprint0?|fprintf|printf|fls|ls|print0)$/;

/** `find [DIR] [tests]`: every entry below DIR, hidden ones too; tests narrow it (a filter). */
function find(args: readonly string[], at: ShellLocation): CallEffect | undefined {
  const start = args.findIndex((arg) => arg.startsWith('-') || arg === '(' || arg === '!');
  const operands = start === -1 ? args : args.slice(0, start);
  const tests = start === -1 ? [] : args.slice(start);
  if (operands.length > 1 || tests.some((test) => FIND_NOT_A_LISTING.test(test))) return undefined;
  const path = resolveOperand(operands[0] ?? '.', at);
  if (path === undefined) return undefined;
  const filter = tests.map((test) => JSON.stringify(test)).join(' ');
  return {
    kind: 'list',
    path,
    shows: ['hidden', 'recursive'],
    ...(filter === '' ? {} : { filter: `find ${filter}` }),
  };
}

/**
 * The effect of one program call given as words (`['cat', 'src/a.ts']`), or undefined when
 * it is not one of `cat`, `head`, `tail`, `sed -n`, `ls`, `find` in a form read with
 * certainty.
 *
 * @param words - the program and its arguments, unquoted
 * @param at - where it runs
 */
export function recogniseProgram(words: readonly string[], at: ShellLocation): CallEffect | undefined {
  const [program, ...args] = words;
  switch (program) {
    case 'cat':
      return cat(args, at);
    case 'head':
    case 'tail':
      return headOrTail(program, args, at);
    case 'sed':
      return sed(args, at);
    case 'ls':
      return ls(args, at);
    case 'find':
      return find(args, at);
    default:
      return undefined;
  }
}
