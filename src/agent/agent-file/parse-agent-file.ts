import { basename } from 'node:path';
import { isMap, isNode, isScalar, LineCounter, type Node, parseDocument, visit } from 'yaml';
import type { z } from 'zod';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import { didYouMean } from '../../options/did-you-mean.ts';
import { aliasesAt, resolveAgentFileAliases } from './agent-file-aliases.ts';
import { type AgentFile, agentFileSchema } from './agent-file-schema.ts';

/** One problem in an agent file, with where it is (AG-1). */
export interface AgentFileProblem {
  readonly file: string;
  /** 1-based line and column of the offending value (or key, or enclosing mapping). */
  readonly line: number;
  readonly column: number;
  /** Dotted key path, e.g. `context.maxMessagesBeforeSummary`; empty for the whole file. */
  readonly key: string;
  /** What was expected, e.g. `a positive integer`. */
  readonly expected: string;
  /** What was found, as written (`"thirty"`), or `nothing` for a missing key. */
  readonly received: string;
  /** `file:line:col key: expected …, received …`. */
  readonly message: string;
}

/** How a value found in the file is shown after "received". */
function describeReceived(node: unknown): string {
  if (node === undefined) return 'nothing';
  const value = isNode(node) ? (node as Node).toJSON() : node;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const shown = JSON.stringify(value);
  return shown.length > 60 ? `${shown.slice(0, 57)}…` : shown;
}

/** Keys of the schema object at a path, for "unknown key" messages. */
function knownKeys(path: readonly PropertyKey[]): string[] {
  let schema: z.ZodType = agentFileSchema;
  for (const key of path) {
    const unwrapped = (schema as { unwrap?: () => z.ZodType }).unwrap?.() ?? schema;
    const shape = (unwrapped as { shape?: Record<string, z.ZodType> }).shape;
    const next = shape?.[String(key)];
    if (next === undefined) return [];
    schema = next;
  }
  const unwrapped = (schema as { unwrap?: () => z.ZodType }).unwrap?.() ?? schema;
  return Object.keys((unwrapped as { shape?: Record<string, unknown> }).shape ?? {}).filter(
    (key) => key !== '$schema',
  );
}

/**
 * Parses and validates an agent file (AG-1): YAML with positions, checked against the agent
 * file schema. Every problem names file, line, column, key, what was expected and what was
 * found: `agents/dev.yaml:12:5 context.maxMessagesBeforeSummary: expected a positive integer, received "thirty"`.
 *
 * @param text The file's content.
 * @param file The name shown in messages (the path as the user gave it).
 * @returns The validated agent file.
 * @throws ChatfoldError `E_AGENT_FILE` whose message lists every problem, one per line, and
 *   whose `details.problems` holds them as {@link AgentFileProblem}s.
 */
export function parseAgentFile(text: string, file: string): AgentFile {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const position = (offset: number | undefined): { line: number; column: number } => {
    if (offset === undefined) return { line: 1, column: 1 };
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const problems: AgentFileProblem[] = [];
  const add = (
    at: { line: number; column: number },
    key: string,
    expected: string,
    received: string,
    wording?: string,
  ): void => {
    const body = wording ?? `expected ${expected}, received ${received}`;
    problems.push({
      file,
      ...at,
      key,
      expected,
      received,
      message: `${file}:${at.line}:${at.column} ${key === '' ? '' : `${key}: `}${body}`,
    });
  };
  for (const error of document.errors) {
    add(
      position(error.pos[0]),
      '',
      'valid YAML',
      'a syntax error',
      `invalid YAML: ${error.message.split('\n')[0]}`,
    );
  }
  let value: unknown;
  let written: ReadonlyMap<string, string> = new Map();
  if (problems.length === 0) {
    // The documents' own spellings (seed 004's snake_case, seed 000's and 003's keys) become the
    // keys they stand for, keeping their positions for any later message.
    const aliases = resolveAgentFileAliases(document);
    written = aliases.written;
    for (const problem of aliases.problems) {
      add(
        position((problem.pair.key as Node | undefined)?.range?.[0]),
        problem.alias,
        problem.key,
        JSON.stringify(problem.alias.split('.').at(-1)),
        problem.message,
      );
    }
  }
  if (problems.length === 0) {
    try {
      value = document.toJS({ maxAliasCount: 100 });
    } catch (error) {
      // An alias without its anchor (`*a`), or an alias bomb: point at the first alias.
      let at: number | undefined;
      visit(document, {
        Alias(_, node) {
          at ??= node.range?.[0];
        },
      });
      add(
        position(at),
        '',
        'valid YAML',
        'a syntax error',
        `invalid YAML: ${(error as Error).message.split('\n')[0]}`,
      );
    }
  }
  if (problems.length === 0) {
    const result = agentFileSchema.safeParse(value);
    if (result.success) {
      if (result.data.name !== undefined) return { ...result.data, name: result.data.name };
      const stem = basename(file).replace(/\.ya?ml$/i, '');
      if (/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(stem)) return { ...result.data, name: stem };
      add(
        { line: 1, column: 1 },
        'name',
        'a name of letters, digits, "_" and "-"',
        'nothing',
        `expected a name of letters, digits, "_" and "-" (the file name ${JSON.stringify(basename(file))} is not one), received nothing`,
      );
    }
    for (const issue of result.error?.issues ?? []) {
      const path = issue.path;
      // The deepest node that exists on the path: the value, else its parent mapping.
      let node: unknown;
      for (let depth = path.length; depth >= 0 && node === undefined; depth--) {
        node = depth === 0 ? document.contents : document.getIn(path.slice(0, depth), true);
      }
      const exact = path.length === 0 ? document.contents : document.getIn(path, true);
      const dotted = path.map(String).join('.');
      const key = written.get(dotted) ?? dotted;
      if (issue.code === 'unrecognized_keys' && isMap(node)) {
        for (const unknown of issue.keys) {
          const pair = node.items.find((item) => isScalar(item.key) && item.key.value === unknown);
          const keyNode = pair?.key as Node | undefined;
          const known = knownKeys(path);
          const suggestion = didYouMean(unknown, [...known, ...aliasesAt(path)]);
          add(
            position(keyNode?.range?.[0]),
            [...path.map(String), unknown].join('.'),
            `one of ${known.join(', ')}`,
            JSON.stringify(unknown),
            `unknown key${suggestion}; expected one of ${known.join(', ')}`,
          );
        }
        continue;
      }
      const range = (node as Node | undefined)?.range;
      add(position(range?.[0]), key, issue.message, describeReceived(exact));
    }
  }
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  throw new ChatfoldError('E_AGENT_FILE', problems.map((problem) => problem.message).join('\n'), {
    path: file,
    problems,
  });
}
