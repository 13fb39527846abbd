import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 22 §3 (API-2): no module keeps state of its own. Memo tables are objects with an owner
// (a counter, a session: `EngineCache`), passed in; what a module may hold at its top level is
// a constant. This reads every source file (a static check: the formatter puts top-level
// statements at column 0) and lists each top-level `let` / `var` and each top-level Map, Set,
// WeakMap, WeakSet or array the file mutates (`.set`, `.add`, `.push`, …), so a new module
// table fails here unless it is one of the few below, each with the reason it is not engine
// state.

const ALLOWED: Readonly<Record<string, string>> = {
  // Data, loaded once and never changed.
  'src/models/registry.ts:bundled': 'the bundled model registry, parsed once from the package data',
  'src/tokens/encodings.ts:loaded': 'BPE rank tables read from data/encoding once; immutable after loading',
  // Scratch memory, not data: no value survives a call (a call that throws drops the arrays).
  'src/tokens/byte-pair-count.ts:bucketHeads':
    'queue heads by rank, -1 between calls (every call drains its queue); reused so a long run does not allocate the vocabulary size each time',
  'src/tokens/byte-pair-count.ts:bucketTails': 'queue tails by rank, read only where a head is set',
  'src/tokens/message-key.ts:scratch':
    'a 64 KB buffer long texts are copied through while hashed; overwritten by each call',
  'src/messages/snapshot.ts:spare':
    'the idle input reader, cleared after every read (its tables of objects seen are emptied in a finally); a read that starts while it is taken makes its own',
  // Open: a table of counters the lead decides on (see the report of issue 22's cache work).
  'src/tokens/count-tokens.ts:counters':
    'countTokens() and compact() without a counter share one counter per tokenizer id (its count caches are content-keyed; its engine cache is never lent to compact())',
  'src/messages/tools/ai-sdk-tools.ts:zodJsonSchemas':
    'the JSON Schema of an immutable zod schema object, weakly keyed (what the AI SDK converts once per schema)',
  'src/agent/language-model-for.ts:builtModels':
    'the AI SDK model built from a frozen model spec, weakly keyed by it (rebuilt when the API key read from the environment changes)',
  // Process-wide by design: they coordinate access to one file or name temp files.
  'src/stores/sqlite/sqlite-driver.ts:queues': 'one write queue per SQLite database file in the process',
  'src/stores/jsonl/file-lock.ts:tokens': 'unique lock-owner tokens within the process',
  'src/stores/jsonl/file-lock.ts:temps': 'unique temporary file names within the process',
  'src/stores/jsonl/atomic-file.ts:temps': 'unique temporary file names within the process',
  'src/stores/shared/process-identity.ts:self':
    'who this process is (pid, host, boot id, start time), read once: a lease holder records it',
  // Threads, not data: idle search workers reused by every search in the process.
  'src/agent/workspace/line-matcher.ts:idleWorkers': 'the pool of idle search worker threads of the process',
  // A worker thread's entry module: the thread is the owner of what it holds.
  'src/agent/workspace/search-worker.ts:regex':
    'the compiled pattern of the search this worker thread serves',
  // Test doubles and the browser client, not the library.
  'src/fake-provider/script-respond.ts:uses': 'the fake provider counts the uses of each scripted rule',
  'src/fake-provider/anthropic/errors.ts:requestCounter': 'request ids of the fake Anthropic server',
  'src/fake-provider/openai/errors.ts:requestCounter': 'request ids of the fake OpenAI server',
  'src/fake-provider/chat-turn.ts:callCounter': 'tool call ids of the fake provider',
  'src/web/client/src/components/dialog.tsx:nextId': 'element ids in the browser page',
  'src/web/client/src/markdown.ts:hooked': 'the sanitizer hook is installed once per page',
};

const root = path.resolve(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(relative);
    return /\.tsx?$/.test(entry.name) && !/\.test(-d)?\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

/** A top-level `let` / `var` (the formatter starts every top-level statement at column 0). */
const TOP_LEVEL_BINDING = /^(?:export )?(?:let|var) ([A-Za-z_$][\w$]*)/gm;
/** A top-level collection: `const name = new Map(…)` or `= []`, with or without a type annotation. */
const TOP_LEVEL_COLLECTION =
  /^(?:export )?const ([A-Za-z_$][\w$]*)(?::[^=\n]+)? = (?:new (?:Map|Set|WeakMap|WeakSet)\b|\[\])/gm;
/** What changes a collection in place. */
const MUTATORS = 'set|add|delete|clear|push|pop|shift|unshift|splice';

/** Top-level mutable state of one file: `let`/`var` names and collections it mutates. */
function moduleState(file: string, text = readFileSync(path.join(root, file), 'utf8')): string[] {
  const found = [...text.matchAll(TOP_LEVEL_BINDING)].map((match) => match[1] as string);
  for (const match of text.matchAll(TOP_LEVEL_COLLECTION)) {
    const name = match[1] as string;
    if (new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}\\.(?:${MUTATORS})\\(`).test(text))
      found.push(name);
  }
  return found.map((name) => `${file}:${name}`);
}

describe('no module-level mutable state (issue 22 §3)', () => {
  const state = sourceFiles('src').flatMap((file) => moduleState(file));

  it('no module keeps a table, a counter or a flag of its own beyond the listed exceptions', () => {
    expect(state.filter((entry) => !(entry in ALLOWED))).toEqual([]);
  });

  it('every exception still exists (the list does not rot)', () => {
    expect(Object.keys(ALLOWED).filter((entry) => !state.includes(entry))).toEqual([]);
  });

  it('finds what it looks for, and leaves constants alone', () => {
    const text = [
      'let counter = 0;',
      'const memo = new WeakMap<object, number>();',
      'const KEYS = new Set(["x"]);',
      'const seen = new Map<string, number>();',
      'const queue: number[] = [];',
      'export function f(o: object) { memo.set(o, 1); queue.push(1); counter++; return KEYS.has("x") && seen.get("y"); }',
    ].join('\n');
    expect(moduleState('probe.ts', text)).toEqual(['probe.ts:counter', 'probe.ts:memo', 'probe.ts:queue']);
  });
});
