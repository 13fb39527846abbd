import { cacheOrFresh, cacheTable, type EngineCache } from '../messages/engine-cache.ts';
import { toolArguments } from '../messages/tool-arguments.ts';
import type { JsonValue, Message } from '../messages/types.ts';
import type { FactKind, FactLedger } from './types.ts';

/**
 * Caps of each ledger list; the newest entries are kept and a capped list says so (`leftOut`).
 * Paths and commands are what an agent needs exactly, so their caps are far above what a long
 * recorded session produces (40 paths and 61 commands in 344 messages).
 */
export const DEFAULT_LEDGER_CAPS: Readonly<Record<FactKind, number>> = {
  filesRead: 400,
  filesModified: 400,
  commands: 200,
  pathsMentioned: 150,
  urls: 20,
  identifiers: 30,
  numbers: 20,
  errors: 12,
};

/** A fresh ledger with empty, appendable lists, one per kind of fact. */
export function emptyFactLists(): Record<FactKind, string[]> {
  return {
    filesRead: [],
    filesModified: [],
    commands: [],
    pathsMentioned: [],
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

/**
 * A file path in tool output: directories then a name with an extension (`lib/a/b.ex`,
 * `./src/x.ts`, `/abs/p.py`), not part of a URL or of a longer word.
 */
const OUTPUT_PATH = /(?<![\w.:/-])(?:\.{1,2}\/|\/)?(?:[\w.-]+\/)+[\w.-]*\w\.[A-Za-z][\w]{0,7}(?![\w/])/g;
/** Whether a UTF-16 unit can be part of an {@link OUTPUT_PATH} match: `[\w.\-/]`. */
function isPathChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || // a-z
    (code >= 65 && code <= 90) || // A-Z
    (code >= 48 && code <= 57) || // 0-9
    code === 95 || // _
    code === 46 || // .
    code === 45 || // -
    code === 47 // /
  );
}

/**
 * The matches of {@link OUTPUT_PATH} in `text`, in order, found without running the pattern
 * over the whole text: a match is made of path characters only and holds a `/`, so only the
 * runs of path characters around each `/` are matched, each with the character on either side
 * (which the pattern's look-behind and look-ahead read). Same matches as `text.matchAll`.
 */
export function outputPathsIn(text: string): string[] {
  const paths: string[] = [];
  for (let slash = text.indexOf('/'); slash !== -1; ) {
    let start = slash;
    while (start > 0 && isPathChar(text.charCodeAt(start - 1))) start--;
    let end = slash + 1;
    while (end < text.length && isPathChar(text.charCodeAt(end))) end++;
    const run = text.slice(Math.max(0, start - 1), end + 1);
    for (const match of run.matchAll(OUTPUT_PATH)) paths.push(match[0]);
    slash = text.indexOf('/', end);
  }
  return paths;
}
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
/**
 * Longest command kept whole (a heredoc that writes a file can be megabytes); a longer one
 * keeps this many characters and says how many more there were.
 */
export const MAX_COMMAND_CHARS = 4000;

function scanWindow(text: string): string {
  return text.length <= SCAN_CHARS * 2 ? text : `${text.slice(0, SCAN_CHARS)}\n${text.slice(-SCAN_CHARS)}`;
}

/** Whether {@link scanWindow} of `text` holds `needle` (one without a newline), without building the window. */
function windowIncludes(text: string, needle: string): boolean {
  if (text.length <= SCAN_CHARS * 2) return text.includes(needle);
  return text.slice(0, SCAN_CHARS).includes(needle) || text.slice(-SCAN_CHARS).includes(needle);
}

/**
 * A ledger item is one line: multi-line values (heredoc commands, stack traces) keep their
 * first line, cut at {@link MAX_ITEM} characters, so the item is a literal prefix of the original.
 */
function clipItem(text: string): string {
  const firstLine = text.trim().split('\n', 1)[0] ?? '';
  return firstLine.length > MAX_ITEM ? firstLine.slice(0, MAX_ITEM) : firstLine;
}

/** A command as it was run, every line of it (issue 19: the ledger keeps whole commands). */
function wholeCommand(text: string): string {
  const command = text.trim();
  if (command.length <= MAX_COMMAND_CHARS) return command;
  return `${command.slice(0, MAX_COMMAND_CHARS)} … [${command.length - MAX_COMMAND_CHARS} more characters]`;
}

/** Every kind of fact a ledger lists, in the order of its fields. */
export const LEDGER_KEYS = [
  'filesRead',
  'filesModified',
  'commands',
  'pathsMentioned',
  'urls',
  'identifiers',
  'numbers',
  'errors',
] as const satisfies readonly FactKind[];
/** Facts are found in groups that share a scan: tool-call arguments, then one group per regex family. */
type FactGroup = 'calls' | 'outputPaths' | 'urls' | 'identifiers' | 'numbers' | 'errors';
const GROUP_OF: Readonly<Record<FactKind, FactGroup>> = {
  filesRead: 'calls',
  filesModified: 'calls',
  commands: 'calls',
  pathsMentioned: 'outputPaths',
  urls: 'urls',
  identifiers: 'identifiers',
  numbers: 'numbers',
  errors: 'errors',
};
/**
 * A message's facts of each group scanned so far (a scan fills every list of its group).
 * Every kind is a key from the start, so all records share one shape (fast to read in a loop
 * over every message of a long span).
 */
type MessageFacts = Record<FactKind, readonly string[] | undefined>;
const noFactsYet = (): MessageFacts => ({
  filesRead: undefined,
  filesModified: undefined,
  commands: undefined,
  pathsMentioned: undefined,
  urls: undefined,
  identifiers: undefined,
  numbers: undefined,
  errors: undefined,
});
const FACTS = cacheTable('summarize.ledger-facts', () => new WeakMap<Message, MessageFacts>());
/** The kinds each group's scan fills (the inverse of `GROUP_OF`). */
const KINDS_OF: Readonly<Record<FactGroup, readonly FactKind[]>> = {
  calls: ['filesRead', 'filesModified', 'commands'],
  outputPaths: ['pathsMentioned'],
  urls: ['urls'],
  identifiers: ['identifiers'],
  numbers: ['numbers'],
  errors: ['errors'],
};
/** Most messages have no facts of a kind: one shared empty list stays in the cache, not one each. */
const NO_FACTS: readonly string[] = Object.freeze([]);

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
  const list = (key: FactKind): string[] => {
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
              if (typeof value === 'string' && value.trim() !== '') commands.push(wholeCommand(value));
            }
          }
        },
      );
      return;
    }
    case 'outputPaths': {
      const paths = list('pathsMentioned');
      for (const part of message.parts) {
        if (part.type !== 'tool-result') continue;
        for (const inner of part.content) {
          if (inner.type !== 'text') continue;
          for (const path of outputPathsIn(scanWindow(inner.text))) paths.push(path);
        }
      }
      return;
    }
    case 'urls': {
      const urls = list('urls');
      walkMessage(message, cache, (text) => {
        // Every URL has a `://`: a text without one (most outputs) skips the pattern.
        if (!windowIncludes(text, '://')) return;
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
  key: FactKind,
  facts: MessageFacts,
  cache: EngineCache,
): readonly string[] {
  const known = facts[key];
  if (known !== undefined) return known;
  const group = GROUP_OF[key];
  scanGroup(message, group, facts, cache);
  for (const kind of KINDS_OF[group]) if (facts[kind]?.length === 0) facts[kind] = NO_FACTS;
  return facts[key] ?? NO_FACTS;
}

/**
 * Extracts the fact ledger of a span (SUM-4), merged after an earlier ledger (multi-level:
 * what earlier summaries carried stays, newest last). Each fact appears once, at its last
 * occurrence, and each kind keeps its newest `caps` facts — so the span is read newest first
 * and reading stops once every kind is full: a long span costs what its recent facts cost,
 * not its whole text. A kind with more facts than its cap (here or in the earlier ledger) is
 * named in `leftOut`, so the summary can say its list is not complete. Very large outputs are
 * scanned at head and tail only. A message's facts are kept in `cache` (a session's: each
 * message is scanned once while it lives), and so is the ledger of the last span ending at each
 * message: the same span again returns it (frozen).
 */
export function extractLedger(
  messages: readonly Message[],
  previous: FactLedger = EMPTY_LEDGER,
  caps: Readonly<Record<FactKind, number>> = DEFAULT_LEDGER_CAPS,
  cache?: EngineCache,
): FactLedger {
  if (cache === undefined) return readLedger(messages, previous, caps, cacheOrFresh(undefined));
  // The same span again (a repeated compaction, a preview then the compaction): the ledger
  // extracted last time for a span ending at this message object, if every message is the same.
  const last = messages.at(-1);
  if (last === undefined) return readLedger(messages, previous, caps, cache);
  const memos = cache.table(LEDGERS);
  const previousKey = previous === EMPTY_LEDGER ? '' : JSON.stringify(previous);
  const memo = memos.get(last);
  if (
    memo !== undefined &&
    memo.caps === caps &&
    memo.previous === previousKey &&
    sameList(memo.messages, messages)
  )
    return memo.ledger;
  const ledger = frozen(readLedger(messages, previous, caps, cache));
  memos.set(last, { messages: [...messages], previous: previousKey, caps, ledger });
  return ledger;
}

/** The last ledger extracted for a span ending at a message object, and what it was read from. */
interface LedgerMemo {
  readonly messages: readonly Message[];
  /** The earlier ledger merged in, as JSON (`''` for none). */
  readonly previous: string;
  readonly caps: Readonly<Record<FactKind, number>>;
  readonly ledger: FactLedger;
}
const LEDGERS = cacheTable('summarize.ledgers', () => new WeakMap<Message, LedgerMemo>());

function sameList(a: readonly Message[], b: readonly Message[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A ledger handed out more than once is frozen: no caller can change another's. */
function frozen(ledger: FactLedger): FactLedger {
  for (const value of Object.values(ledger)) if (Array.isArray(value)) Object.freeze(value);
  return Object.freeze(ledger);
}

/** {@link extractLedger} without the memo. */
function readLedger(
  messages: readonly Message[],
  previous: FactLedger,
  caps: Readonly<Record<FactKind, number>>,
  cache: EngineCache,
): FactLedger {
  const factsByMessage = cache.table(FACTS);
  const seen = Object.fromEntries(LEDGER_KEYS.map((key) => [key, new Set<string>()])) as Record<
    FactKind,
    Set<string>
  >;
  const newestFirst = emptyFactLists();
  // A record read back from a store is checked loosely: keep only kinds this ledger knows.
  const earlierLeftOut: readonly unknown[] = Array.isArray(previous.leftOut) ? previous.leftOut : [];
  const leftOut = new Set<FactKind>(
    LEDGER_KEYS.filter((key) => earlierLeftOut.includes(key) && caps[key] > 0),
  );
  // A kind stays open until it is full and one more fact shows that older ones are left out.
  let open: FactKind[] = LEDGER_KEYS.filter((key) => caps[key] > 0);
  // Set when a list reaches its cap: only then can a kind close (see `isOpen`).
  let full = false;
  const take = (key: FactKind, items: readonly string[]): void => {
    if (items.length === 0) return;
    const cap = caps[key];
    const list = newestFirst[key];
    const seenOfKey = seen[key];
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i] as string;
      if (item === '' || seenOfKey.has(item)) continue;
      if (list.length >= cap) {
        leftOut.add(key);
        full = true;
        return;
      }
      seenOfKey.add(item);
      list.push(item);
    }
    if (list.length >= cap) full = true;
  };
  const isOpen = (key: FactKind): boolean => !(newestFirst[key].length >= caps[key] && leftOut.has(key));
  // One lookup of a message's facts per message, not per kind (this loop visits every message
  // of a span whose kinds never fill).
  for (let m = messages.length - 1; m >= 0 && open.length > 0; m--) {
    const message = messages[m] as Message;
    let facts = factsByMessage.get(message);
    if (facts === undefined) {
      facts = noFactsYet();
      factsByMessage.set(message, facts);
    }
    for (const key of open) take(key, messageFacts(message, key, facts, cache));
    if (full) {
      open = open.filter(isOpen);
      full = false;
    }
  }
  // Records written before a kind existed lack its list.
  for (const key of open) take(key, previous[key] ?? []);
  // Oldest first, as the ledger lists facts.
  for (const key of LEDGER_KEYS) newestFirst[key].reverse();
  return leftOut.size === 0
    ? newestFirst
    : { ...newestFirst, leftOut: LEDGER_KEYS.filter((key) => leftOut.has(key)) };
}
