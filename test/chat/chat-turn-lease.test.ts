import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type GatedUpstream, startGatedUpstream } from '../hardening/gated-upstream.ts';
import { cleanEnv, type ServeProcess, startServe } from '../web/serve-process.ts';
import { CHATFOLD_ENTRY, type ChatHome, chatHome, send } from './chat-fixtures.ts';
import { openTerminal, type TerminalSession } from './tmux-terminal.ts';

// One turn at a time per session across processes (issue 24 §5), as a person meets it: two
// `chatfold chat` terminals, and a terminal next to `chatfold serve`, on one SQLite file. The
// upstream holds a turn's first answer until the test releases it, so that turn is certainly
// running while the other process is asked — no sleeps.

let upstream: GatedUpstream;
const open: TerminalSession[] = [];
const servers: ServeProcess[] = [];

beforeAll(async () => {
  upstream = await startGatedUpstream();
});
afterAll(() => upstream.close());
afterEach(async () => {
  upstream.release();
  for (const terminal of open.splice(0)) terminal.close();
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

function leaseHome(): { home: ChatHome; agentFile: string } {
  const home = chatHome();
  const agentFile = home.agent(
    'lease',
    [
      'name: lease',
      'model:',
      '  provider: openai-compatible',
      '  name: gated',
      `  baseURL: ${upstream.url}/v1`,
      '  maxInputTokens: 100000',
      '  maxOutputTokens: 512',
      'instructions: You read notes.',
      'tools: [read_file]',
      '',
    ].join('\n'),
  );
  return { home, agentFile };
}

function chat(home: ChatHome, session: string, isNew = false): TerminalSession {
  const terminal = openTerminal({
    command: [
      process.execPath,
      CHATFOLD_ENTRY,
      'chat',
      'lease',
      '--workspace',
      home.workspace,
      '--store',
      home.store,
      '--session',
      session,
      ...(isNew ? ['--new'] : []),
    ],
    cwd: home.dir,
    env: home.env,
  });
  open.push(terminal);
  return terminal;
}

const BUSY =
  /✗ another process is answering in session ([\w-]+): (chatfold \w+) \(pid (\d+) on this machine, turn started \d+ s ago\); wait for its turn to finish, then send again \(↑ brings your message back\)\n/;

describe('chatfold chat: one turn at a time per session across processes (issue 24 §5)', {
  timeout: 300_000,
}, () => {
  it('a second terminal on the session is told which process is answering; its message goes through once the turn is done (↑ Enter)', async () => {
    const { home } = leaseHome();
    const first = chat(home, 'shared', true);
    await first.waitFor(/You>$/);
    const second = chat(home, 'shared');
    await second.waitFor(/You>$/);

    const held = upstream.holdNext();
    let at = await send(first, 'read my notes');
    await held; // the first terminal's turn is running
    const at2 = await send(second, 'hello from the second terminal');
    const refused = await second.waitFor(BUSY, { since: at2 });
    const [, session, program, pid] = BUSY.exec(refused) ?? [];
    expect([session, program]).toEqual(['shared', 'chatfold chat']);
    expect(Number(pid)).toBeGreaterThan(0);
    expect(refused).not.toContain('The notes say hello.');
    await second.waitFor(/You>$/, { since: at2 });

    upstream.release();
    const answered = await first.waitFor(/The notes say hello\.\n/, { since: at });
    expect(answered).toContain('⚙ read_file notes.md');
    expect(answered).not.toContain('✗');

    // ↑ brings the refused line back; sent now, it is answered.
    at = second.screen().length;
    second.press('Up', 'Enter');
    const resent = await second.waitFor(/The notes say hello\.\n/, { since: at });
    expect(resent).toContain('hello from the second terminal');
    expect(resent).not.toMatch(BUSY);
  });

  it('a terminal and chatfold serve on one store: each is refused while the other answers, naming it', async () => {
    const { home, agentFile } = leaseHome();
    const serve = await startServe(
      ['--store', home.store, '--agent', agentFile, '--workspace', home.workspace, '--no-workers'],
      cleanEnv(home.dir, { OPENAI_COMPATIBLE_API_KEY: 'test-key' }),
    );
    servers.push(serve);
    const created = await fetch(`${serve.url}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'lease' }),
    });
    const id = ((await created.json()) as { session: { id: string } }).session.id;
    const turn = (text: string): Promise<Response> =>
      fetch(`${serve.url}/api/sessions/${id}/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text }),
      });
    const terminal = chat(home, id);
    await terminal.waitFor(/You>$/);

    // The web app's turn is running: the terminal is told it is chatfold serve's.
    let held = upstream.holdNext();
    const web = turn('read my notes from the web');
    await held;
    let at = await send(terminal, 'hello from the terminal');
    const refused = await terminal.waitFor(BUSY, { since: at });
    expect(BUSY.exec(refused)?.slice(1, 4)).toEqual([id, 'chatfold serve', String(serve.child.pid)]);
    upstream.release();
    const webBody = await (await web).text();
    expect(webBody).toContain('event: done');
    expect(webBody).not.toContain('event: error');

    // The terminal's turn is running: the web app gets 409 E_BUSY naming the terminal.
    held = upstream.holdNext();
    at = await send(terminal, 'read my notes from the terminal');
    await held;
    const busy = await turn('hello from the web');
    expect(busy.status).toBe(409);
    const error = ((await busy.json()) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('E_BUSY');
    expect(error.message).toMatch(
      /^a turn or a summary is already running in this session, in chatfold chat \(pid \d+ on this machine, turn started \d+ s ago\); wait for it to finish$/,
    );
    upstream.release();
    await terminal.waitFor(/The notes say hello\.\n/, { since: at });
    const after = await turn('and now from the web');
    expect(after.status).toBe(200);
    expect(await after.text()).toContain('event: done');
  });
});
