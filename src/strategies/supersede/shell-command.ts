import type { CallEffect } from './call-effect.ts';
import {
  FIND_NOT_A_LISTING,
  recogniseProgram,
  resolveOperand,
  type ShellLocation,
} from './shell-programs.ts';
import { type Pipeline, type SimpleCommand, splitShellCommand } from './shell-words.ts';

/**
 * Programs whose repeated identical run makes the earlier output stale without changing
 * anything (`git log` shows the newest history, `grep` the current matches). A list entry of
 * two words (`git log`) matches a command that starts with both. `git status` and `git diff`
 * are left out on purpose: after a commit the newer output is empty and says nothing about
 * what the older one showed.
 */
export const DEFAULT_READ_ONLY_COMMANDS: readonly string[] = [
  'cat',
  'head',
  'tail',
  'ls',
  'tree',
  'pwd',
  'wc',
  'grep',
  'egrep',
  'rg',
  'find',
  'git log',
  'git show',
  'git ls-files',
];

/** Programs a read-only command's output may be piped through without changing what it reads. */
const FILTERS = new Set([
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'head',
  'tail',
  'sort',
  'uniq',
  'wc',
  'cut',
  'tr',
  'nl',
]);
const CHANGES_DIRECTORY = new Set(['cd', 'pushd', 'popd']);

/** Options of {@link parseShellCommand}. */
export interface ShellCommandOptions {
  /**
   * Directory the command starts in, as a path key: `'.'` for the working directory of the
   * conversation (paths stay relative), an absolute path, or undefined when unknown (then
   * only absolute paths are recognised).
   */
  readonly directory?: string | undefined;
  /** The conversation's working directory, when known: absolute paths inside it get relative keys. */
  readonly cwd?: string | undefined;
  /** Default {@link DEFAULT_READ_ONLY_COMMANDS}. */
  readonly readOnlyCommands?: readonly string[];
}

/** What a shell command line shows and does, as far as superseding is concerned (STR-1). */
export interface ShellCommandAnalysis {
  /** The single file read or listing the output shows, when the line is one we recognise. */
  readonly effect: CallEffect | undefined;
  /** Every pipeline runs read-only programs (repeats of the line may supersede each other). */
  readonly isReadOnly: boolean;
  /** Programs whose own error messages start with `program:` (`cat: a: No such file…`). */
  readonly programs: readonly string[];
  /** Errors were discarded (`2>/dev/null`): an empty output may mean failure. */
  readonly hidesErrors: boolean;
  /**
   * The line runs `cd`/`pushd`/`popd` outside a `cd DIR && …` prefix it fully follows: the
   * shell's directory may differ afterwards. `directoryAfter` is the new directory when the
   * line ends in a known one (`cd /repo && …`), undefined when unknown.
   */
  readonly changesDirectory: boolean;
  readonly directoryAfter: string | undefined;
}

function matchesCommand(words: readonly string[], entries: readonly string[]): boolean {
  return entries.some((entry) => {
    const parts = entry.split(' ');
    return parts.every((part, i) => words[i] === part);
  });
}

function isReadOnlyCommand(command: SimpleCommand, entries: readonly string[]): boolean {
  const { words } = command;
  return (
    matchesCommand(words, entries) && !(words[0] === 'find' && words.some((w) => FIND_NOT_A_LISTING.test(w)))
  );
}

function isFilter({ words }: SimpleCommand): boolean {
  const [program, ...rest] = words;
  if (program === undefined || !FILTERS.has(program)) return false;
  // `sort -o FILE` writes; a filter with a file operand reads that file instead of the pipe.
  return !(program === 'sort' && rest.some((word) => word.startsWith('-o')));
}

/** Narrows an effect by the filters its output went through (`cat a | grep x` is a partial read). */
function throughFilters(effect: CallEffect, filters: readonly SimpleCommand[]): CallEffect {
  if (filters.length === 0) return effect;
  const pipe = filters.map((filter) => `| ${filter.words.map((w) => JSON.stringify(w)).join(' ')}`).join(' ');
  if (effect.kind === 'read') return { ...effect, range: `${effect.range ?? 'all'} ${pipe}` };
  if (effect.kind === 'list') return { ...effect, filter: effect.filter ? `${effect.filter} ${pipe}` : pipe };
  return effect;
}

function recognisePipeline(pipeline: Pipeline, at: ShellLocation): CallEffect | undefined {
  const [first, ...filters] = pipeline.commands;
  if (first === undefined || !filters.every(isFilter)) return undefined;
  const effect = recogniseProgram(first.words, at);
  return effect === undefined ? undefined : throughFilters(effect, filters);
}

/**
 * Reads a shell tool's command line (Claude Code `Bash`, SWE-agent `bash`, Codex `shell`…):
 * which file it reads (`cat`, `head`, `tail`, `sed -n`) or which directory it lists (`ls`,
 * `find`), through `cd DIR && …` prefixes and read-only filters (`| grep`, `| head`). More
 * than one output-producing pipeline, or anything {@link splitShellCommand} calls opaque,
 * gives no effect.
 *
 * @param command - the command text
 * @param options - the directory it starts in and the read-only program list
 */
export function parseShellCommand(command: string, options: ShellCommandOptions = {}): ShellCommandAnalysis {
  const { cwd, readOnlyCommands = DEFAULT_READ_ONLY_COMMANDS } = options;
  // An explicit `directory: undefined` means unknown, not the default.
  const directory = 'directory' in options ? options.directory : '.';
  const structure = splitShellCommand(command);
  if (structure.kind === 'opaque') {
    return {
      effect: undefined,
      isReadOnly: false,
      programs: [],
      hidesErrors: false,
      changesDirectory: structure.words.some((word) => CHANGES_DIRECTORY.has(word)),
      directoryAfter: undefined,
    };
  }
  const { pipelines } = structure;
  let current: string | undefined = directory;
  let changesDirectory = false;
  const outputs: { pipeline: Pipeline; directory: string | undefined }[] = [];
  pipelines.forEach((pipeline, index) => {
    const words = pipeline.commands[0]?.words ?? [];
    if (!CHANGES_DIRECTORY.has(words[0] ?? '')) {
      outputs.push({ pipeline, directory: current });
      return;
    }
    changesDirectory = true;
    const target = words[1];
    const followedByAnd = pipelines[index + 1]?.joinedBy === '&&' || index === pipelines.length - 1;
    // Only `cd DIR` with a plain directory is followed; `cd`, `cd -`, `cd ~`, `pushd` are not.
    current =
      words[0] === 'cd' && words.length === 2 && target !== undefined && target !== '-' && followedByAnd
        ? resolveOperand(target, { directory: current, cwd })
        : undefined;
  });
  const commands = pipelines.flatMap((pipeline) => pipeline.commands);
  const only = outputs.length === 1 ? outputs[0] : undefined;
  return {
    effect:
      only === undefined ? undefined : recognisePipeline(only.pipeline, { directory: only.directory, cwd }),
    isReadOnly:
      outputs.length > 0 &&
      outputs.every(({ pipeline }) => {
        const [first, ...filters] = pipeline.commands;
        return first !== undefined && isReadOnlyCommand(first, readOnlyCommands) && filters.every(isFilter);
      }),
    programs: [...new Set(commands.map((c) => c.words[0] as string))],
    hidesErrors: commands.some((c) => c.hidesErrors),
    changesDirectory,
    directoryAfter: changesDirectory ? current : directory,
  };
}
