import type { JsonValue } from '../../messages/types.ts';
import type { CallEffect, ListingFeature, ToolCallView } from './call-effect.ts';
import { normalizePath } from './path-key.ts';
import type { ToolMapping } from './tool-mappings.ts';

/** A shell command a mapping points at; the strategy reads it with the shell's current directory. */
export interface ShellRequest {
  readonly kind: 'shell';
  readonly command: string;
  /** The directory argument (gemini-cli `directory`, Codex `workdir`), when given. */
  readonly directory?: string;
}

type Args = Readonly<Record<string, JsonValue>>;

function firstString(args: Args, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = args[key];
    if (typeof value === 'string' && value.trim() !== '') return value;
  }
  return undefined;
}

/** Canonical JSON: object keys sorted, so key order never matters. */
export function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as JsonValue)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** `offset=100 limit=50` for the range keys present, or undefined when none is. */
function rangeOf(args: Args, keys: readonly string[]): string | undefined {
  const parts: string[] = [];
  for (const key of keys) {
    const value = args[key];
    if (value !== undefined && value !== null) parts.push(`${key}=${canonicalJson(value)}`);
  }
  return parts.length === 0 ? undefined : parts.join(' ');
}

/** Codex sends `["bash", "-lc", "cat a"]`; other argv arrays are quoted back into a line. */
function commandText(value: JsonValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value) || !value.every((word) => typeof word === 'string')) return undefined;
  const words = value as string[];
  if (words.length === 3 && /^(ba|z|)sh$/.test(words[0] ?? '') && /^-l?c$/.test(words[1] ?? ''))
    return words[2];
  return words
    .map((word) => (/^[\w./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`))
    .join(' ');
}

/**
 * The effect a tool mapping gives a call, a shell command for the strategy to read, or
 * undefined when the call lacks what the mapping needs (no path, an unknown sub-command).
 *
 * @param mapping - the tool's mapping
 * @param call - the call with its output (edits check it for full content)
 */
export function effectFromMapping(
  mapping: ToolMapping,
  call: ToolCallView,
): CallEffect | ShellRequest | undefined {
  const { args, cwd } = call;
  switch (mapping.kind) {
    case 'by-command': {
      const sub = args[mapping.command];
      const inner = typeof sub === 'string' ? mapping.commands[sub] : undefined;
      return inner === undefined ? undefined : effectFromMapping(inner, call);
    }
    case 'shell': {
      const command = commandText(mapping.command.map((key) => args[key]).find((v) => v !== undefined));
      if (command === undefined) return undefined;
      const directory = mapping.directory === undefined ? undefined : firstString(args, mapping.directory);
      return { kind: 'shell', command, ...(directory === undefined ? {} : { directory }) };
    }
    case 'list': {
      const raw = firstString(args, mapping.path);
      const path = normalizePath(raw ?? '.', cwd);
      if (path === undefined) return undefined;
      const shows = new Set<ListingFeature>(mapping.shows ?? []);
      if ((mapping.recursive ?? []).some((key) => args[key] === true || args[key] === 'true'))
        shows.add('recursive');
      const filters = [mapping.baseFilter, rangeOf(args, mapping.filter ?? [])].filter(
        (f) => f !== undefined,
      );
      return {
        kind: 'list',
        path,
        shows: [...shows].sort(),
        ...(filters.length === 0 ? {} : { filter: filters.join(' ') }),
      };
    }
    default: {
      const raw = firstString(args, mapping.path);
      const path = raw === undefined ? undefined : normalizePath(raw, cwd);
      if (path === undefined) return undefined;
      if (mapping.kind === 'write') return { kind: 'write', path };
      if (mapping.kind === 'edit') {
        const output = mapping.output ?? 'snippet';
        const fullContent =
          output === 'full-content' || (typeof output === 'object' && call.output.includes(output.contains));
        return fullContent ? { kind: 'edit', path, fullContent } : { kind: 'edit', path };
      }
      const range = rangeOf(args, mapping.range ?? []);
      return range === undefined ? { kind: 'read', path } : { kind: 'read', path, range };
    }
  }
}
