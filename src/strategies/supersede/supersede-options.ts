import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { contentHash } from '../../messages/content-hash.ts';
import { describe } from '../../messages/normalize.ts';
import type { SupersedeRule } from './call-effect.ts';
import type { ClassifyConfig } from './result-events.ts';
import { DEFAULT_READ_ONLY_COMMANDS } from './shell-command.ts';
import { DEFAULT_IDEMPOTENT_TOOLS, DEFAULT_TOOL_MAPPINGS, type ToolMapping } from './tool-mappings.ts';

/**
 * A stale output is stubbed only when the stub is at least this many characters shorter:
 * saving less is not worth changing the prompt prefix (the provider's prompt cache, seed 002).
 */
export const DEFAULT_SUPERSEDE_MIN_SAVED_CHARS = 200;

/** Options of {@link supersede}. Every field is optional; defaults are the exported constants. */
export interface SupersedeOptions {
  /**
   * Tool mappings by tool name, merged over {@link DEFAULT_TOOL_MAPPINGS}; `null` removes a
   * built-in one (e.g. `{ view: null }` when your `view` tool is not a file viewer).
   */
  readonly tools?: Readonly<Record<string, ToolMapping | null>>;
  /** Custom rules, tried in order before the tool mappings; the first effect wins. */
  readonly rules?: readonly SupersedeRule[];
  /**
   * Read-only tools whose identical repeated call supersedes the earlier output. Default
   * {@link DEFAULT_IDEMPOTENT_TOOLS}.
   */
  readonly idempotentTools?: readonly string[];
  /**
   * Repeated identical shell command lines (same directory): `'read-only'` (default) lets a
   * repeat supersede only when every program is in `readOnlyCommands`; `'all'` also for
   * commands that act (`npm test`: the older run's output is history, not current state —
   * choose `'all'` if your agents only ever need the latest run); `'none'` never.
   */
  readonly repeatedCommands?: 'read-only' | 'all' | 'none';
  /** Programs (or `program subcommand`) counted read-only. Default {@link DEFAULT_READ_ONLY_COMMANDS}. */
  readonly readOnlyCommands?: readonly string[];
  /**
   * The agent's working directory: absolute paths inside it and relative paths get one key
   * (`/repo/src/a.ts` = `src/a.ts`). Without it they are compared as written.
   */
  readonly cwd?: string;
  /** Stub only when it saves at least this many characters. Default {@link DEFAULT_SUPERSEDE_MIN_SAVED_CHARS}. */
  readonly minSavedChars?: number;
}

const MAPPING_KINDS = new Set(['read', 'write', 'edit', 'list', 'shell', 'by-command']);
const REPEATS = ['read-only', 'all', 'none'];

function invalid(option: string, expected: string, received: unknown): ChatfoldError {
  return new ChatfoldError(
    'E_INVALID_OPTIONS',
    `supersede: option ${option}: expected ${expected}, received ${typeof received === 'string' ? JSON.stringify(received) : describe(received)}`,
    { strategy: 'supersede', option },
  );
}

function checkStrings(option: string, value: unknown): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw invalid(option, 'an array of strings', value);
  }
  return value;
}

function checkMapping(option: string, mapping: unknown): void {
  const kind = (mapping as { kind?: unknown } | null)?.kind;
  if (
    typeof mapping !== 'object' ||
    mapping === null ||
    typeof kind !== 'string' ||
    !MAPPING_KINDS.has(kind)
  ) {
    throw invalid(option, `a mapping with kind ${[...MAPPING_KINDS].join(' | ')}`, mapping);
  }
  const record = mapping as Record<string, unknown>;
  if (kind === 'by-command') {
    if (typeof record.command !== 'string')
      throw invalid(`${option}.command`, 'an argument key', record.command);
    const commands = record.commands;
    if (typeof commands !== 'object' || commands === null) {
      throw invalid(`${option}.commands`, 'an object of mappings by sub-command', commands);
    }
    for (const [name, inner] of Object.entries(commands)) checkMapping(`${option}.commands.${name}`, inner);
    return;
  }
  const keysOption = kind === 'shell' ? 'command' : 'path';
  const keys = checkStrings(`${option}.${keysOption}`, record[keysOption]);
  if (keys === undefined || keys.length === 0) {
    throw invalid(`${option}.${keysOption}`, 'a non-empty array of argument keys', record[keysOption]);
  }
}

/**
 * A configuration's short key: the per-part caches are keyed by it on every call part and
 * result, and the configuration's JSON (kilobytes of mappings) would cost a hash per lookup.
 * Hashed once, when the strategy is built.
 */
function configKey(json: string): string {
  return `${contentHash(json)}:${json.length}`;
}

/**
 * Checks the options and resolves them to the classification config, so bad input fails when
 * the strategy is built with a message naming the option (MSG-4), not deep inside a compaction.
 */
export function resolveSupersedeOptions(
  options: SupersedeOptions,
): ClassifyConfig & { minSavedChars: number } {
  if (typeof options !== 'object' || options === null) throw invalid('(options)', 'an object', options);
  const {
    tools = {},
    rules = [],
    repeatedCommands = 'read-only',
    cwd,
    minSavedChars = DEFAULT_SUPERSEDE_MIN_SAVED_CHARS,
  } = options;
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools)) {
    throw invalid('tools', 'an object of tool mappings by tool name', tools);
  }
  const mappings = new Map<string, ToolMapping>(Object.entries(DEFAULT_TOOL_MAPPINGS));
  for (const [name, mapping] of Object.entries(tools)) {
    if (mapping === null) mappings.delete(name);
    else {
      checkMapping(`tools.${name}`, mapping);
      mappings.set(name, mapping);
    }
  }
  if (!Array.isArray(rules) || !rules.every((rule) => typeof rule === 'function')) {
    throw invalid('rules', 'an array of functions (call) => effect | undefined', rules);
  }
  if (!REPEATS.includes(repeatedCommands))
    throw invalid('repeatedCommands', REPEATS.join(' | '), repeatedCommands);
  if (cwd !== undefined && (typeof cwd !== 'string' || !/^(\/|[A-Za-z]:[\\/])/.test(cwd))) {
    throw invalid('cwd', 'an absolute path', cwd);
  }
  if (typeof minSavedChars !== 'number' || !Number.isFinite(minSavedChars) || minSavedChars < 0) {
    throw invalid('minSavedChars', 'a number >= 0', minSavedChars);
  }
  const idempotentTools =
    checkStrings('idempotentTools', options.idempotentTools) ?? DEFAULT_IDEMPOTENT_TOOLS;
  const readOnlyCommands =
    checkStrings('readOnlyCommands', options.readOnlyCommands) ?? DEFAULT_READ_ONLY_COMMANDS;
  return {
    rules,
    tools: mappings,
    dataKey: configKey(
      JSON.stringify([tools, idempotentTools, repeatedCommands, readOnlyCommands, cwd ?? null]),
    ),
    idempotentTools: new Set(
      checkStrings('idempotentTools', options.idempotentTools) ?? DEFAULT_IDEMPOTENT_TOOLS,
    ),
    repeatedCommands,
    readOnlyCommands:
      checkStrings('readOnlyCommands', options.readOnlyCommands) ?? DEFAULT_READ_ONLY_COMMANDS,
    cwd,
    minSavedChars,
  };
}
