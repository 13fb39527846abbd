import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startUsageServer, type UsageServer } from '../agent/usage-server.ts';
import { chatHome, localModel, runChat } from './chat-fixtures.ts';

// Issue 18 item 5: `--session` of an unknown id is an error unless `--new`; counts read with
// the right plural.

let server: UsageServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('chatfold chat --session / --new', { timeout: 60_000 }, () => {
  it('an unknown id fails (a typo must not open an empty session); --new starts it; --new on a taken id fails', async () => {
    server = await startUsageServer({ shape: 'llama.cpp', reporting: 'correct', answer: 'Ok.' });
    const home = chatHome();
    const base = ['chat', ...localModel(server.baseURL), '--store', home.store];
    const typo = await runChat(home, [...base, '--session', 'projct', '--print', 'hi']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe(
      `chatfold: no session "projct" in sqlite ${home.store}; add --new to start it, or run /sessions in a chat to list them [E_INVALID_OPTIONS]\n`,
    );
    const started = await runChat(home, [...base, '--session', 'project', '--new', '--print', 'hi']);
    expect(started).toMatchObject({ code: 0, stdout: 'Ok.\n', stderr: '' });
    const resumed = await runChat(home, [...base, '--session', 'project', '--print', 'again']);
    expect(resumed).toMatchObject({ code: 0, stdout: 'Ok.\n' });
    expect(resumed.stderr).toBe('\nResuming session project\n3 messages in history (0 summarized)\n\n');
    const taken = await runChat(home, [...base, '--session', 'project', '--new', '--print', 'hi']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toBe(
      `chatfold: session "project" already exists in sqlite ${home.store} (5 messages); drop --new to resume it [E_INVALID_OPTIONS]\n`,
    );
  });

  it('--print without --session says where it saved the new session; that command continues it', async () => {
    server = await startUsageServer({ shape: 'ollama', reporting: 'correct', answer: 'Ok.' });
    const home = chatHome();
    const base = ['chat', ...localModel(server.baseURL), '--store', home.store];
    const first = await runChat(home, [...base, '--print', 'hi']);
    expect(first).toMatchObject({ code: 0, stdout: 'Ok.\n', stderr: '' });
    const session = first.saved?.session as string;
    expect(first.saved?.line).toBe(
      `Saved as session ${session} in sqlite ${home.store}; continue: chatfold chat --session ${session} --store ${home.store} --model openai-compatible:gpt-4o --base-url ${server.baseURL}\n`,
    );
    const next = await runChat(home, [...base, '--session', session, '--print', 'again']);
    expect(next).toMatchObject({ code: 0, stdout: 'Ok.\n' });
    expect(next.saved).toBeUndefined();
    expect(next.stderr).toBe(`\nResuming session ${session}\n3 messages in history (0 summarized)\n\n`);
  });

  it('/sessions rename titles this session, /sessions delete hides another; a deleted id cannot be resumed', async () => {
    server = await startUsageServer({ shape: 'llama.cpp', reporting: 'correct', answer: 'Ok.' });
    const home = chatHome();
    const base = ['chat', ...localModel(server.baseURL), '--store', home.store];
    await runChat(home, [...base, '--session', 'old', '--new'], 'hello\n');
    const run = await runChat(
      home,
      [...base, '--session', 'garden', '--new'],
      'hi\n/sessions rename Garden plans\n/sessions delete old\n/sessions delete garden\n/sessions delete nope\n/sessions\n',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Session garden is now “Garden plans”.\n');
    expect(run.stdout).toContain('Deleted session old (its messages stay in the store).\n');
    expect(run.stdout).toContain('This is the session you are in; delete it from another one.\n');
    expect(run.stdout).toContain(`No session nope in sqlite ${home.store}; /sessions lists them.\n`);
    const list = run.stdout.slice(run.stdout.lastIndexOf('Sessions in'));
    expect(list).toMatch(/\* garden +3 messages {2}updated .* {2}agent chat {2}“Garden plans”\n$/);
    expect(list).not.toContain(' old ');
    const resumed = await runChat(home, [...base, '--session', 'old', '--print', 'again']);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toBe(
      `chatfold: session "old" was deleted from sqlite ${home.store}; start another (drop --session) or pick one from /sessions [E_INVALID_OPTIONS]\n`,
    );
  });

  it('/sessions and /history count with their nouns', async () => {
    server = await startUsageServer({ shape: 'vllm', reporting: 'correct', answer: 'Ok.' });
    const home = chatHome();
    const base = ['chat', ...localModel(server.baseURL), '--store', home.store];
    const empty = await runChat(home, [...base, '--session', 'one', '--new'], '/history\n');
    expect(empty.stdout).toContain('History: 0 messages;');
    const run = await runChat(home, [...base, '--session', 'two', '--new'], 'hello\n/sessions\n/history\n');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\* two +3 messages {2}updated/);
    expect(run.stdout).toMatch(/ {4}one +0 messages {2}updated/);
    expect(run.stdout).toContain('History: 3 messages;');
  });
});

describe('chatfold chat --timeout', { timeout: 60_000 }, () => {
  it('a model server that never answers: one line saying so and how to wait longer, exit 1', async () => {
    server = await startUsageServer({ shape: 'vllm', reporting: 'correct', stall: 'before-headers' });
    const home = chatHome();
    const base = ['chat', ...localModel(server.baseURL), '--store', home.store];
    const run = await runChat(home, [...base, '--timeout', '0.5', '--print', 'hi']);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe(
      '✗ openai-compatible:gpt-4o sent nothing for 0.5 s; the request was cancelled (the server may be overloaded or stuck); --timeout SECONDS waits longer\n',
    );
    const bad = await runChat(home, [...base, '--timeout', 'soon', '--print', 'hi']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^chatfold: --timeout "soon": expected seconds .*\[E_INVALID_OPTIONS\]\n$/);
  });
});

describe('chatfold chat --store and --workspace are checked', { timeout: 60_000 }, () => {
  it('a store in a folder that does not exist, a workspace that does not exist: one line, exit 1, nothing created', async () => {
    server = await startUsageServer({ shape: 'vllm', reporting: 'correct', answer: 'Ok.' });
    const home = chatHome();
    const base = ['chat', ...localModel(server.baseURL)];
    const missing = path.join(home.dir, 'nonexistent', 'dir');
    const store = await runChat(home, [...base, '--store', path.join(missing, 'x.db'), '--print', 'hi']);
    expect(store.code).toBe(1);
    expect(store.stderr).toBe(
      `chatfold: --store ${path.join(missing, 'x.db')}: the folder ${missing} does not exist; create it first (mkdir -p ${missing}) or choose another path [E_INVALID_OPTIONS]\n`,
    );
    expect(existsSync(path.join(home.dir, 'nonexistent'))).toBe(false);
    const workspace = await runChat(home, [
      ...base,
      '--store',
      home.store,
      '--workspace',
      missing,
      '--print',
      'hi',
    ]);
    expect(workspace.code).toBe(1);
    expect(workspace.stderr).toBe(
      `chatfold: --workspace ${missing}: no such folder; the file tools work inside an existing folder [E_INVALID_OPTIONS]\n`,
    );
    const file = await runChat(home, [
      ...base,
      '--store',
      home.store,
      '--workspace',
      path.join(home.workspace, 'notes.md'),
      '--print',
      'hi',
    ]);
    expect(file.stderr).toMatch(/: not a folder; /);
  });
});

describe('/summarize, /compactions and /context agree', { timeout: 60_000 }, () => {
  it('the messages a summary covers: the same number in all three, after two summaries', async () => {
    server = await startUsageServer({
      shape: 'ollama',
      reporting: 'correct',
      answer: 'Noted, the garden plan.',
      summary:
        '## Context and goal\nThe user is planning the garden: the roses along the fence need water every few days, and the beds need compost before the spring planting.',
    });
    const home = chatHome();
    const turns = (from: number) =>
      Array.from(
        { length: 5 },
        (_, i) => `Turn ${from + i}: ${'the roses along the fence need water; '.repeat(12)}`,
      ).join('\n');
    const run = await runChat(
      home,
      ['chat', ...localModel(server.baseURL), '--store', home.store],
      `${turns(0)}\n/summarize\n${turns(5)}\n/summarize\n/compactions\n/context\n`,
    );
    expect(run.code).toBe(0);
    const ready = [...run.stdout.matchAll(/Summary ready: .*; it covers ([\d,]+) messages?\./g)].map(
      (m) => m[1],
    );
    expect(ready).toHaveLength(2);
    const listed = [...run.stdout.matchAll(/summary covers ([\d,]+) messages? /g)].map((m) => m[1]);
    const last = /Last summary: ([\d,]+) messages? →/.exec(run.stdout)?.[1];
    expect(listed).toEqual(ready);
    expect(last).toBe(ready[1]);
    expect(Number(ready[1])).toBeGreaterThan(Number(ready[0]));
  });
});
