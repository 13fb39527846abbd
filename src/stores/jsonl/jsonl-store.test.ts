import { appendFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runStoreConformance } from '../../../test/stores/conformance.ts';
import { ChatfoldError } from '../../errors/chatfold-error.ts';
import type { Message } from '../../messages/types.ts';
import type { SnapshotInput, StoredMessage } from '../types.ts';
import { jsonlStore } from './jsonl-store.ts';
import { sessionFolderName } from './session-folder.ts';

runStoreConformance('jsonl', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'chatfold-jsonl-'));
  return {
    store: jsonlStore(dir),
    reopen: async () => jsonlStore(dir),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
});

const message = (id: string, text = `text of ${id}`): Message => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
  createdAt: '2026-01-01T00:00:00.000Z',
});

const summary = (cutoffSeq: number, messageCutoffId: string): SnapshotInput => ({
  kind: 'summary',
  content: { summaryText: `up to ${messageCutoffId}` },
  messageCutoffId,
  cutoffSeq,
  tokenCount: 3,
});

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatfold-jsonl-unit-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const folderOf = (sessionId: string) => join(dir, 'sessions', sessionFolderName(sessionId));
const readLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '');

describe('jsonlStore layout (seed 004 §7.5)', () => {
  it('keeps messages.jsonl, snapshots.jsonl, summary.json and session.json per session, settings.json at the top', async () => {
    const store = jsonlStore(dir);
    await store.append('chat-1', [{ message: message('m1') }, { message: message('m2') }]);
    const first = await store.writeSnapshot('chat-1', summary(1, 'm1'), { expectedLatestId: null });
    if (!first.written) throw new Error('first snapshot not written');
    const second = await store.writeSnapshot('chat-1', summary(2, 'm2'), {
      expectedLatestId: first.snapshot.id,
    });
    if (!second.written) throw new Error('second snapshot not written');
    await store.ensureSession('chat-1', { title: 'hello' });
    await store.setSetting('theme', 'dark');

    const folder = join(dir, 'sessions', 'chat-1');
    expect(readdirSync(dir).sort()).toEqual(['sessions', 'settings.json']);
    expect(readdirSync(folder).sort()).toEqual([
      'messages.jsonl',
      'session.json',
      'snapshots.jsonl',
      'summary.json',
    ]);
    // One StoredMessage per line, exactly what the store returns.
    const rows = readLines(join(folder, 'messages.jsonl')).map((line) => JSON.parse(line) as StoredMessage);
    expect(rows.map(({ seq, message: m }) => [seq, m.id])).toEqual([
      [1, 'm1'],
      [2, 'm2'],
    ]);
    expect(rows.map((row) => ({ ...row, batchEnd: undefined }))).toEqual(
      (await store.messages('chat-1')).map((row) => ({ ...row, batchEnd: undefined })),
    );
    // Every snapshot stays in snapshots.jsonl; summary.json holds the latest one.
    expect(readLines(join(folder, 'snapshots.jsonl')).map((line) => JSON.parse(line).id)).toEqual([
      first.snapshot.id,
      second.snapshot.id,
    ]);
    expect(JSON.parse(readFileSync(join(folder, 'summary.json'), 'utf8'))).toEqual(second.snapshot);
    expect(JSON.parse(readFileSync(join(folder, 'session.json'), 'utf8'))).toMatchObject({
      id: 'chat-1',
      metadata: { title: 'hello' },
    });
    expect(JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8'))).toEqual({ theme: 'dark' });
    // No lock or temp file is left behind.
    await store.close();
  });

  it('reads a store written by another instance', async () => {
    const writer = jsonlStore(dir);
    await writer.append('s', [{ message: message('m1') }]);
    await writer.writeSnapshot('s', summary(1, 'm1'), { expectedLatestId: null });
    const reader = jsonlStore(dir);
    expect((await reader.context('s')).snapshot?.messageCutoffId).toBe('m1');
    await writer.append('s', [{ message: message('m2') }]);
    expect((await reader.context('s')).tail.map((row) => row.message.id)).toEqual(['m2']);
  });
});

describe('session folder names', () => {
  it('percent-encodes everything outside [a-z0-9_-] in lower-case hex', () => {
    expect(sessionFolderName('chat_1-a')).toBe('chat_1-a');
    expect(sessionFolderName('My Chat')).toBe('%4dy%20%43hat');
    expect(sessionFolderName('../x')).toBe('%2e%2e%2fx');
    expect(sessionFolderName('..')).toBe('%2e%2e');
    expect(sessionFolderName('a\\b')).toBe('a%5cb');
    expect(sessionFolderName('🧪')).toBe('%f0%9f%a7%aa');
    expect(sessionFolderName('con')).toBe('%63on');
    expect(decodeURIComponent(sessionFolderName('Ünïcode / 🧪 ..'))).toBe('Ünïcode / 🧪 ..');
  });

  it('gives ids that differ only in case different lower-case names', () => {
    expect(sessionFolderName('A')).not.toBe(sessionFolderName('a'));
    expect(sessionFolderName('A').toLowerCase()).not.toBe(sessionFolderName('a').toLowerCase());
    expect(sessionFolderName('A')).toMatch(/^[a-z0-9_%-]+$/);
  });

  it('cuts long encodings and adds a hash, keeping names apart and under 255 bytes', () => {
    const long = (tail: string) => `${'🧪'.repeat(254)}${tail}`; // 510 + 2 = 512 UTF-16 units
    const names = [long('ab'), long('ac'), 'x'.repeat(512), `${'x'.repeat(511)}y`].map(sessionFolderName);
    expect(new Set(names).size).toBe(4);
    for (const name of names) {
      expect(name.length).toBeLessThanOrEqual(200);
      expect(name).toMatch(/^[a-z0-9_%-]+~[0-9a-f]{32}$/);
      expect(name).not.toMatch(/%.?~/); // never cut inside an escape
    }
    // Lone surrogates (all U+FFFD in UTF-8) take the hashed form and stay apart.
    expect(sessionFolderName('a\uD800')).not.toBe(sessionFolderName('a\uD801'));
  });

  it('stores sessions with awkward ids inside the sessions folder, each in its own folder', async () => {
    const store = jsonlStore(dir);
    const ids = [
      '../x',
      '../../etc/passwd',
      'A',
      'a',
      '🧪 emoji',
      '.',
      'con',
      '🧪'.repeat(256),
      'z'.repeat(512),
    ];
    for (const [i, id] of ids.entries()) await store.append(id, [{ message: message(`m${i}`) }]);
    expect(readdirSync(dir)).toEqual(['sessions']);
    expect(readdirSync(join(dir, 'sessions')).length).toBe(ids.length);
    for (const id of ids) expect(existsSync(join(folderOf(id), 'messages.jsonl'))).toBe(true);

    const reopened = jsonlStore(dir);
    for (const [i, id] of ids.entries()) {
      expect((await reopened.messages(id)).map((row) => row.message.id)).toEqual([`m${i}`]);
    }
    expect((await reopened.listSessions()).map((s) => s.id).sort()).toEqual([...ids].sort());
  });
});

describe('damaged files', () => {
  it('ignores a torn last line on read and cuts it before the next append', async () => {
    const store = jsonlStore(dir);
    await store.append('s', [{ message: message('m1') }, { message: message('m2') }]);
    const file = join(folderOf('s'), 'messages.jsonl');
    const whole = readFileSync(file, 'utf8');
    appendFileSync(file, '{"sessionId":"s","seq":3,"message":{"id":"m3","role":"us'); // a crash mid-write

    const reader = jsonlStore(dir);
    expect((await reader.messages('s')).map((row) => row.seq)).toEqual([1, 2]);
    expect((await reader.context('s')).messageCount).toBe(2);

    const [row] = await reader.append('s', [{ message: message('m3') }]);
    expect(row?.seq).toBe(3);
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith(whole)).toBe(true);
    expect(readLines(file).map((line) => JSON.parse(line).seq)).toEqual([1, 2, 3]);
    expect((await jsonlStore(dir).messages('s')).map((r) => r.message.id)).toEqual(['m1', 'm2', 'm3']);
  });

  it('ignores the whole of a batch whose last line was torn (append is all or none)', async () => {
    const store = jsonlStore(dir);
    await store.append('s', [{ message: message('m1') }]);
    await store.append('s', [{ message: message('m2') }, { message: message('m3') }]);
    const file = join(folderOf('s'), 'messages.jsonl');
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, text.length - 10)); // the batch's second line torn
    expect((await jsonlStore(dir).messages('s')).map((row) => row.message.id)).toEqual(['m1']);
    const [row] = await jsonlStore(dir).append('s', [{ message: message('m4') }]);
    expect(row?.seq).toBe(2);
  });

  it('fails with E_STORE naming the file and line when a middle line is not JSON', async () => {
    const store = jsonlStore(dir);
    await store.append('s', [{ message: message('m1') }, { message: message('m2') }]);
    await store.append('s', [{ message: message('m3') }]);
    const file = join(folderOf('s'), 'messages.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[1] = 'this is not json';
    writeFileSync(file, lines.join('\n'));

    for (const read of [
      (s: ReturnType<typeof jsonlStore>) => s.messages('s'),
      (s: ReturnType<typeof jsonlStore>) => s.context('s'),
      (s: ReturnType<typeof jsonlStore>) => s.append('s', [{ message: message('m4') }]),
    ]) {
      const error = await read(jsonlStore(dir)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(ChatfoldError.hasCode(error, 'E_STORE')).toBe(true);
      expect((error as ChatfoldError).message).toContain(`${file} line 2`);
      expect((error as ChatfoldError).details).toMatchObject({ path: file, line: 2 });
    }
    // Nothing was appended over the damage.
    expect(readFileSync(file, 'utf8')).toBe(lines.join('\n'));
  });

  it('counts blank lines when naming the damaged line', async () => {
    const store = jsonlStore(dir);
    await store.append('s', [{ message: message('m1') }]);
    const file = join(folderOf('s'), 'messages.jsonl');
    appendFileSync(file, '\n\n{"not":"a row"}\n');
    const error = await jsonlStore(dir)
      .messages('s')
      .catch((e: unknown) => e);
    expect((error as ChatfoldError).details).toMatchObject({ path: file, line: 4 });
  });

  it('brings summary.json up to date on the next write after a crash between snapshots.jsonl and summary.json', async () => {
    const store = jsonlStore(dir);
    await store.append('s', [{ message: message('m1') }, { message: message('m2') }]);
    const first = await store.writeSnapshot('s', summary(1, 'm1'), { expectedLatestId: null });
    if (!first.written) throw new Error('not written');
    const mirror = join(folderOf('s'), 'summary.json');
    const older = readFileSync(mirror, 'utf8');
    const second = await store.writeSnapshot('s', summary(2, 'm2'), { expectedLatestId: first.snapshot.id });
    if (!second.written) throw new Error('not written');
    writeFileSync(mirror, older); // as if the writer died before the rename
    expect((await jsonlStore(dir).latestSnapshot('s'))?.id).toBe(second.snapshot.id); // the log decides

    await jsonlStore(dir).append('s', [{ message: message('m3') }]);
    expect(JSON.parse(readFileSync(mirror, 'utf8'))).toEqual(second.snapshot);
    writeFileSync(mirror, ''); // unreadable: rewritten too
    const result = await jsonlStore(dir).writeSnapshot('s', summary(2, 'm2'), { expectedLatestId: 'stale' });
    expect(result.written).toBe(false);
    expect(JSON.parse(readFileSync(mirror, 'utf8'))).toEqual(second.snapshot);
  });

  it('fails with E_STORE when a row of snapshots.jsonl is damaged', async () => {
    const store = jsonlStore(dir);
    await store.append('s', [{ message: message('m1') }]);
    await store.writeSnapshot('s', summary(1, 'm1'), { expectedLatestId: null });
    const file = join(folderOf('s'), 'snapshots.jsonl');
    writeFileSync(file, `{oops\n${readFileSync(file, 'utf8')}`);
    const error = await jsonlStore(dir)
      .latestSnapshot('s')
      .catch((e: unknown) => e);
    expect(ChatfoldError.hasCode(error, 'E_STORE')).toBe(true);
    expect((error as ChatfoldError).details).toMatchObject({ path: file, line: 1 });
  });
});
