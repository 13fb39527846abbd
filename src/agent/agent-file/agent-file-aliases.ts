import { type Document, isMap, isScalar, type Pair, type YAMLMap } from 'yaml';

/** One other spelling of an agent-file key: where it is written, and the key it stands for. */
export interface AgentFileAlias {
  /** Where the alias is written, e.g. `['context', 'max_messages_before_summary']`. */
  readonly alias: readonly [string, ...string[]];
  /** The key it stands for, e.g. `['context', 'maxMessagesBeforeSummary']`. */
  readonly key: readonly [string, ...string[]];
  /** Values that are spelled differently too (`truncation` → `local-truncation`). */
  readonly values?: Readonly<Record<string, string>>;
}

/**
 * Every other spelling an agent file accepts, in one table: the design documents' own keys, so
 * their example files load as written. Seed 004 §7.7 (`ContextSettings`, snake_case), seed 000
 * (the model's `max_input_tokens` and `max_tokens`), seed 003 (`ContextConfig`: the window, the
 * compaction point, the strategy — its three presets — and `keep_recent`). A key that is neither known nor listed here
 * is still an unknown key with a did-you-mean.
 */
export const AGENT_FILE_ALIASES: readonly AgentFileAlias[] = [
  // Seed 004 §7.7
  { alias: ['context', 'auto_summarize'], key: ['context', 'autoSummarize'] },
  { alias: ['context', 'max_messages_before_summary'], key: ['context', 'maxMessagesBeforeSummary'] },
  { alias: ['context', 'max_tokens_before_summary'], key: ['context', 'maxTokensBeforeSummary'] },
  { alias: ['context', 'min_recent_messages'], key: ['context', 'minRecentMessages'] },
  { alias: ['context', 'response_reserve'], key: ['context', 'responseReserve'] },
  // Seed 000 §1.2 (`model_property`)
  { alias: ['model', 'max_input_tokens'], key: ['model', 'maxInputTokens'] },
  { alias: ['model', 'max_tokens'], key: ['model', 'maxOutputTokens'] },
  // Seed 003 (`ContextConfig`, `AgentOptions.base_url`)
  { alias: ['context', 'max_context_tokens'], key: ['model', 'maxInputTokens'] },
  { alias: ['context', 'target_tokens'], key: ['context', 'maxTokensBeforeSummary'] },
  {
    alias: ['context', 'strategy'],
    key: ['context', 'policy'],
    values: {
      truncation: 'local-truncation',
      importance: 'local-importance',
      summarization: 'local-summarization',
    },
  },
  { alias: ['context', 'keep_recent'], key: ['context', 'minRecentMessages'] },
  { alias: ['model', 'base_url'], key: ['model', 'baseURL'] },
];

/** The aliases written in the mapping at `path` (for did-you-mean hints). */
export function aliasesAt(path: readonly PropertyKey[]): string[] {
  const at = path.map(String).join('.');
  return AGENT_FILE_ALIASES.filter(({ alias }) => alias.slice(0, -1).join('.') === at).map(
    ({ alias }) => alias[alias.length - 1] as string,
  );
}

/** A key given twice through an alias, or an alias whose target section is missing. */
export interface AliasProblem {
  /** The pair written with the alias (its key's range is the position). */
  readonly pair: Pair;
  readonly alias: string;
  readonly key: string;
  readonly message: string;
}

const pairOf = (map: YAMLMap, key: string): Pair | undefined =>
  map.items.find((item) => isScalar(item.key) && item.key.value === key) as Pair | undefined;

/**
 * Rewrites the aliases of a parsed agent file to the keys they stand for, in place: a pair keeps
 * its node (and so its line and column for later messages) and moves to the key's mapping.
 *
 * @returns `problems`: what could not be rewritten (the key was also given under its own name
 *   or through another alias, or the key's mapping such as `model` does not exist); `written`:
 *   the aliases used, by the key they became.
 */
export function resolveAgentFileAliases(document: Document): {
  readonly problems: AliasProblem[];
  /** Each rewritten key's dotted path → the alias it was written as (messages name what was written). */
  readonly written: ReadonlyMap<string, string>;
} {
  const problems: AliasProblem[] = [];
  const written = new Map<string, string>();
  const root = document.contents;
  if (!isMap(root)) return { problems, written };
  const mapAt = (path: readonly string[]): YAMLMap | undefined => {
    let map: YAMLMap = root;
    for (const key of path) {
      const next = pairOf(map, key)?.value;
      if (!isMap(next)) return undefined;
      map = next;
    }
    return map;
  };
  for (const { alias, key, values } of AGENT_FILE_ALIASES) {
    const from = mapAt(alias.slice(0, -1));
    const aliasName = alias[alias.length - 1] as string;
    const pair = from === undefined ? undefined : pairOf(from, aliasName);
    if (from === undefined || pair === undefined) continue;
    const keyName = key[key.length - 1] as string;
    const to = mapAt(key.slice(0, -1));
    const aliasPath = alias.join('.');
    const keyPath = key.join('.');
    if (to === undefined) {
      problems.push({
        pair,
        alias: aliasPath,
        key: keyPath,
        message: `stands for ${keyPath}, but the file has no ${key.slice(0, -1).join('.')} section`,
      });
      continue;
    }
    if (pairOf(to, keyName) !== undefined) {
      problems.push({
        pair,
        alias: aliasPath,
        key: keyPath,
        message: `stands for ${keyPath}, which is also given; keep one of the two`,
      });
      continue;
    }
    from.items.splice(from.items.indexOf(pair), 1);
    if (isScalar(pair.key)) pair.key.value = keyName;
    if (values !== undefined && isScalar(pair.value) && typeof pair.value.value === 'string') {
      pair.value.value = values[pair.value.value] ?? pair.value.value;
    }
    to.items.push(pair);
    // A section left empty (seed 003's context after its keys moved) goes too: it was not empty.
    if (from.items.length === 0 && from !== root) {
      const parent = mapAt(alias.slice(0, -2));
      parent?.items.splice(
        parent.items.findIndex((item) => item.value === from),
        1,
      );
    }
    written.set(keyPath, aliasPath);
  }
  return { problems, written };
}
