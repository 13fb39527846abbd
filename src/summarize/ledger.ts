import { cacheOrFresh, cacheTable, type EngineCache } from '../messages/engine-cache.ts';
import { toolArguments } from '../messages/tool-arguments.ts';
import type { JsonValue, Message } from '../messages/types.ts';
import type { FactLedger } from './types.ts';

/** Caps of each ledger list; the newest entries are kept. */
export const DEFAULT_LEDGER_CAPS: Readonly<Record<keyof FactLedger, number>> = {
  filesRead: 100,
  filesModified: 100,
  commands: 100,
  urls: 20,
  identifiers: 30,
  numbers: 20,
  errors: 12,
};

/** A fresh ledger with empty, appendable lists, one per kind of fact. */
export function emptyFactLists(): Record<keyof FactLedger, string[]> {
  return {
    filesRead: [],
    filesModified: [],
    commands: [],
    urls: [],
    identifiers: [],
    numbers: [],
    errors: [],
  };
}

export const EMPTY_LEDGER: FactLedger = emptyFactLists();

/** Argument keys that hold a file or directory path, across agent frameworks. */
const PATH_KEYS = [
  'file_path',
  'filePath',
  'path',
  'filename',
  'file',
  'target_file',
  'notebook_path',
  'absolute_path',
  'dir_path',
];
/** Argument keys that hold a shell command. */
const COMMAND_KEYS = ['command', 'cmd', 'script'];
const MODIFYING_TOOL = /write|edit|create|replace|patch|insert|delete|remove|move|rename|apply|update/i;
const SHELL_TOOL = /bash|shell|exec|run|terminal|command|powershell/i;
const READ_COMMAND = new Set(['view', 'read']);

const URL = /https?:\/\/[^\s"'`<>)\]}]+/g;
const COMMIT = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g;
const ISSUE = /(?<![\w/])#\d{1,6}\b/g;
const BACKTICKED = /`([^`\n]{2,60})`/g;
const NUMBER_WITH_UNIT =
  /\b\d[\d,.]*\s?(?:tokens?|ms|seconds?|minutes?|MB|KB|GB|%|lines?|tests?|files?|errors?|failures?|bytes?)\b|\bport\s\d{2,5}\b/gi;
const ERROR_LINE = /^.*\b(?:Error|Exception|Traceback|FAILED|FAIL|fatal|panic|Cannot|Unable to)\b.*$/gm;
/** Only the first and last this-many characters of a text are scanned by regexes (large outputs). */
const SCAN_CHARS = 20_000;
const MAX_ITEM = 300;

function scanWindow(text: string): string {
  return text.length <= SCAN_CHARS * 2 ? text : `${text.slice(0, SCAN_CHARS)}\n${text.slice(-SCAN_CHARS)}`;
}

/**
 * A ledger item is one line: multi-line values (heredoc commands, stack traces) keep their
 * first line, cut at {@link MAX_ITEM} characters, so the item is a literal prefix of the original.
 */
function clipItem(text: string): string {
  const firstLine = text.trim().split('\n', 1)[0] ?? '';
  return firstLine.length > MAX_ITEM ? firstLine.slice(0, MAX_ITEM) : firstLine;
}

const LEDGER_KEYS = [
  'filesRead',
  'filesModified',
  'commands',
  'urls',
  'identifiers',
  'numbers',
  'errors',
] as const;
/** Facts are found in groups that share a scan: tool-call arguments, then one group per regex family. */
type FactGroup = 'calls' | 'urls' | 'identifiers' | 'numbers' | 'errors';
const GROUP_OF: Readonly<Record<keyof FactLedger, FactGroup>> = {
  filesRead: 'calls',
  filesModified: 'calls',
  commands: 'calls',
  urls: 'urls',
  identifiers: 'identifiers',
  numbers: 'numbers',
  errors: 'errors',
};
/** A message's facts of each group scanned so far (a scan fills every list of its group). */
type MessageFacts = Partial<Record<keyof FactLedger, string[]>>;
const FACTS = cacheTable('summarize.ledger-facts', () => new WeakMap<Message, MessageFacts>());

/**
 * Calls `onText` for every text of a message the ledger reads (with whether error lines
 * count there), `onCall` for each tool call's arguments and `onErrorResult` for each text of
 * a failed tool result, in order of occurrence.
 */
function walkMessage(
  message: Message,
  cache: EngineCache | undefined,
  onText: (text: string, withErrors: boolean) => void,
  onCall?: (name: string, args: Readonly<Record<string, JsonValue>>) => void,
  onErrorResult?: (text: string) => void,
): void {
  for (const part of message.parts) {
    if (part.type === 'text') onText(part.text, message.role !== 'user');
    else if (part.type === 'tool-call') {
      const args = toolArguments(part, cache);
      if (args === undefined) continue;
      onCall?.(part.name, args);
      for (const value of Object.values(args))
        if (typeof value === 'string' && value.length < 2000) onText(value, false);
    } else if (part.type === 'tool-result') {
      for (const inner of part.content) {
        if (inner.type !== 'text') continue;
        if (part.isError === true) onErrorResult?.(inner.text);
        onText(inner.text, part.isError === true);
      }
    }
  }
}

function scanGroup(message: Message, group: FactGroup, facts: MessageFacts, cache?: EngineCache): void {
  const list = (key: keyof FactLedger): string[] => {
    const created: string[] = [];
    facts[key] = created;
    return created;
  };
  switch (group) {
    case 'calls': {
      const filesRead = list('filesRead');
      const filesModified = list('filesModified');
      const commands = list('commands');
      walkMessage(
        message,
        cache,
        () => {},
        (name, args) => {
          const subcommand =
            typeof args.command === 'string' && !SHELL_TOOL.test(name) ? args.command : undefined;
          const isModifying =
            subcommand !== undefined ? !READ_COMMAND.has(subcommand) : MODIFYING_TOOL.test(name);
          for (const key of PATH_KEYS) {
            const value = args[key];
            if (typeof value === 'string' && value !== '')
              (isModifying ? filesModified : filesRead).push(value);
          }
          if (SHELL_TOOL.test(name)) {
            for (const key of COMMAND_KEYS) {
              const value = args[key];
              if (typeof value === 'string' && value.trim() !== '') commands.push(clipItem(value));
            }
          }
        },
      );
      return;
    }
    case 'urls': {
      const urls = list('urls');
      walkMessage(message, cache, (text) => {
        for (const match of scanWindow(text).matchAll(URL)) urls.push(match[0].replace(/[.,;:]+$/, ''));
      });
      return;
    }
    case 'identifiers': {
      const identifiers = list('identifiers');
      walkMessage(message, cache, (text) => {
        const window = scanWindow(text);
        for (const match of window.matchAll(COMMIT)) identifiers.push(match[0]);
        for (const match of window.matchAll(ISSUE)) identifiers.push(match[0]);
        for (const match of window.matchAll(BACKTICKED)) identifiers.push((match[1] as string).trim());
      });
      return;
    }
    case 'numbers': {
      const numbers = list('numbers');
      walkMessage(message, cache, (text) => {
        for (const match of scanWindow(text).matchAll(NUMBER_WITH_UNIT)) numbers.push(match[0]);
      });
      return;
    }
    case 'errors': {
      const errors = list('errors');
      walkMessage(
        message,
        cache,
        (text, withErrors) => {
          if (withErrors)
            for (const match of scanWindow(text).matchAll(ERROR_LINE)) errors.push(clipItem(match[0]));
        },
        undefined,
        (text) => errors.push(clipItem(text.split('\n').find((line) => line.trim()) ?? '')),
      );
      return;
    }
  }
}

/**
 * The facts of one kind in a message, in order of occurrence; each group of kinds is scanned
 * once per message object, and only when asked (a ledger whose identifiers are full never
 * runs the identifier patterns over older messages).
 */
function messageFacts(
  message: Message,
  key: keyof FactLedger,
  factsByMessage: WeakMap<Message, MessageFacts>,
  cache: EngineCache,
): readonly string[] {
  let facts = factsByMessage.get(message);
  if (facts === undefined) {
    facts = {};
    factsByMessage.set(message, facts);
  }
  if (facts[key] === undefined) scanGroup(message, GROUP_OF[key], facts, cache);
  return facts[key] ?? [];
}

/**
 * Extracts the fact ledger of a span (SUM-4), merged after an earlier ledger (multi-level:
 * what earlier summaries carried stays, newest last). Each fact appears once, at its last
 * occurrence, and each kind keeps its newest `caps` facts — so the span is read newest first
 * and reading stops once every kind is full: a long span costs what its recent facts cost,
 * not its whole text. Very large outputs are scanned at head and tail only. A message's facts
 * are kept in `cache` (a session's: each message is scanned once while it lives).
 */
export function extractLedger(
  messages: readonly Message[],
  previous: FactLedger = EMPTY_LEDGER,
  caps: Readonly<Record<keyof FactLedger, number>> = DEFAULT_LEDGER_CAPS,
  cache: EngineCache = cacheOrFresh(undefined),
): FactLedger {
  const factsByMessage = cache.table(FACTS);
  const seen = Object.fromEntries(LEDGER_KEYS.map((key) => [key, new Set<string>()])) as Record<
    keyof FactLedger,
    Set<string>
  >;
  const newestFirst = emptyFactLists();
  let open = LEDGER_KEYS.filter((key) => caps[key] > 0);
  const take = (key: keyof FactLedger, items: readonly string[]): void => {
    const cap = caps[key];
    const list = newestFirst[key];
    for (let i = items.length - 1; i >= 0 && list.length < cap; i--) {
      const item = items[i] as string;
      if (item === '' || seen[key].has(item)) continue;
      seen[key].add(item);
      list.push(item);
    }
  };
  for (let m = messages.length - 1; m >= 0 && open.length > 0; m--) {
    const message = messages[m] as Message;
    for (const key of open) take(key, messageFacts(message, key, factsByMessage, cache));
    open = open.filter((key) => newestFirst[key].length < caps[key]);
  }
  for (const key of open) take(key, previous[key]);
  // Oldest first, as the ledger lists facts.
  for (const key of LEDGER_KEYS) newestFirst[key].reverse();
  return newestFirst;
}
