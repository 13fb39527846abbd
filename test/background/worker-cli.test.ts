import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, runChatfoldProcess, startServe } from '../web/serve-process.ts';

// Issue 13 from the command line: `chatfold worker` refuses a store other processes cannot
// share, and `chatfold serve` on SQLite writes summaries in its own workers (off the turn) unless
// --no-workers, when they are written inline, streamed into the turn that needed them.

const home = mkdtempSync(join(tmpdir(), 'chatfold-worker-cli-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Runs turns in one new session; returns the event names of every turn's stream. */
async function runTurns(url: string, count: number): Promise<{ id: string; events: string[][] }> {
  const headers = { 'content-type': 'application/json' };
  const created = await fetch(`${url}/api/sessions`, { method: 'POST', headers, body: '{}' });
  const { session } = (await created.json()) as { session: { id: string } };
  const events: string[][] = [];
  for (let turn = 0; turn < count; turn += 1) {
    const response = await fetch(`${url}/api/sessions/${session.id}/turns`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        text: `turn ${turn}: ${'tell me about river deltas and sediment. '.repeat(20)}`,
      }),
    });
    events.push([...(await response.text()).matchAll(/^event: (.+)$/gm)].map((match) => match[1] as string));
  }
  return { id: session.id, events };
}

describe('chatfold worker and serve --no-workers (issue 13)', () => {
  it('chatfold worker refuses a SQLite store: only a PostgreSQL queue is shared between processes', async () => {
    const result = await runChatfoldProcess('worker', ['--store', join(home, 'local.db')], cleanEnv(home));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /chatfold worker needs a store that several processes share: --store postgres:\/\//,
    );
    expect(result.stderr).toContain('[E_INVALID_OPTIONS]');
  });

  it('serve on SQLite writes summaries in its own workers: no turn streams a summary, yet the session compacts with an LLM summary', async () => {
    const server = await startServe(
      ['--fake-provider', '--window', '6000', '--store', join(home, 'background.db')],
      cleanEnv(home),
    );
    try {
      expect(server.output()).toContain('summaries in the background: in-process, workers in this process');
      const { id, events } = await runTurns(server.url, 24);
      expect(events.every((turn) => turn.at(-1) === 'done')).toBe(true);
      expect(events.flat()).not.toContain('compaction-progress');
      expect(events.flat()).toContain('compaction-end');
      const { compactions } = (await (
        await fetch(`${server.url}/api/sessions/${id}/compactions`)
      ).json()) as {
        compactions: { summarySource?: string }[];
      };
      expect(compactions.some((compaction) => compaction.summarySource === 'llm')).toBe(true);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('serve --no-workers on SQLite summarizes inline, streaming the summary into the turn that needed it', async () => {
    const server = await startServe(
      ['--fake-provider', '--window', '6000', '--no-workers', '--store', join(home, 'inline.db')],
      cleanEnv(home),
    );
    try {
      expect(server.output()).toContain('summaries inline');
      const { events } = await runTurns(server.url, 24);
      expect(events.flat()).toContain('compaction-progress');
    } finally {
      await server.stop();
    }
  }, 120_000);
});
