/// <reference lib="dom" />
// The web app end to end (WEB-1..8) in Debian's Chromium through playwright-core, against
// `chatfold serve` and chatfold's fake provider, as a person uses it: by role and name.
// Screenshots of the main states go to test/web/artifacts/ (not committed).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { type FakeProviderServer, startFakeProvider } from '../../src/fake-provider/index.ts';
import type { FakeScript } from '../../src/fake-provider/script.ts';
import { CHROMIUM, HAS_CHROMIUM, launchChromium } from './chromium.ts';
import { ensureClientBuilt } from './client-build.ts';
import { filler } from './harness.ts';
import { cleanEnv, type ServeProcess, startServe } from './serve-process.ts';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const API_KEY = 'sk-browser-test-key-abcdef0123456789';
const TOKEN = 'browser-token-0123456789abcdef';

// Payloads that must stay text wherever they appear (WEB-8). Each would set window.__xss.
const HTML_PAYLOAD = '<img src=x onerror="window.__xss=1">';
const SCRIPT_PAYLOAD = '<script>window.__xss=2</script>';
const MARKDOWN_PAYLOAD = [
  'Here is **bold** text and a [link](javascript:window.__xss=3) and <a href="javascript:window.__xss=4">raw link</a>.',
  '',
  HTML_PAYLOAD,
  '',
  SCRIPT_PAYLOAD,
  '',
  '<iframe src="javascript:window.__xss=5"></iframe> <svg onload="window.__xss=6"></svg>',
  '',
  '![pixel](http://127.0.0.1:1/track.png) [data](data:text/html,<script>window.__xss=7</script>)',
].join('\n');
const SUMMARY_TEXT = [
  '## Context and goal',
  'The user is testing chatfold with numbered turns.',
  '',
  '## Key points',
  `- Markers such as turn-3 were discussed. ${'More detail about the conversation. '.repeat(12)}`,
  '',
  '## Decisions',
  '- Keep every turn number.',
].join('\n');

const script = (summary: string): FakeScript => ({
  rules: [
    { match: { isSummary: true }, reply: { text: summary, chunkDelayMs: 12 } },
    { match: { lastUserIncludes: '[slow]' }, reply: { chunkDelayMs: 40 } },
    {
      match: { lastUserIncludes: 'read the notes' },
      steps: [
        { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.md' } }] },
        { text: 'I read the notes.' },
      ],
    },
    { match: { lastUserIncludes: '[xss-answer]' }, reply: { text: MARKDOWN_PAYLOAD } },
  ],
});

let home: string;
let fake: FakeProviderServer;
let serve: ServeProcess;
let browser: Browser;
let page: Page;
const problems: string[] = [];

function serveArgs(): string[] {
  return [
    // Summaries inline, on the request path: these tests watch a compaction happen within the
    // turn that triggers it. The background path (the default) is tested in test/background.
    '--no-workers',
    '--agent',
    join(home, 'web-e2e.yaml'),
    '--store',
    join(home, 'chats.db'),
    '--workspace',
    join(home, 'workspace'),
  ];
}

async function openPage(url: string): Promise<Page> {
  const next = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  next.on('dialog', (dialog) => {
    problems.push(`a JavaScript dialog opened: ${dialog.message()}`);
    void dialog.dismiss();
  });
  next.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  next.on('console', (message) => {
    // A CSP refusal means something tried to run injected code (WEB-8).
    if (/Content Security Policy|Refused to/.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  await next.goto(url);
  return next;
}

const shot = (name: string): Promise<Buffer> => page.screenshot({ path: join(ARTIFACTS, name) });

async function newChat(): Promise<string> {
  const before = page.url();
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  await page.waitForURL((url) => /#\/s\/[^/]+$/.test(url.hash) && url.href !== before);
  await page.getByRole('heading', { level: 1, name: 'New chat' }).waitFor();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  return decodeURIComponent(/#\/s\/([^/]+)$/.exec(page.url())?.[1] ?? '');
}

/** Sends a message and waits for the stored turn to be shown. */
async function send(text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  await page
    .getByRole('article', { name: 'Assistant, answering' })
    .waitFor({ state: 'detached', timeout: 60_000 });
  await page.getByRole('button', { name: 'Send' }).waitFor();
}

async function gauge(): Promise<{ now: number; max: number; level: string; colour: string }> {
  const meter = page.getByRole('meter', { name: 'Context usage' });
  const now = Number(await meter.getAttribute('aria-valuenow'));
  const max = Number(await meter.getAttribute('aria-valuemax'));
  const level = (await page.locator('.gauge').getAttribute('data-level')) ?? '';
  const colour = await page
    .locator('.gauge-fill')
    .evaluate((element) => getComputedStyle(element).backgroundColor);
  return { now, max, level, colour };
}

/** Sends echo turns until the gauge reaches `percent` of the budget (each turn adds the text twice). */
async function fillTo(percent: number, marker: string): Promise<void> {
  for (let attempt = 0; attempt < 6; attempt++) {
    const { now, max } = await gauge();
    const need = (percent / 100) * max - now;
    if (need <= max * 0.01) return;
    await send(filler(`${marker}-${attempt}`, Math.max(20, Math.floor(need / 2) - 12)));
  }
}

/** Opens the chat's "⋯" menu and picks an item. */
async function chatAction(name: 'Summarize conversation history' | 'View full history'): Promise<void> {
  await page.getByRole('button', { name: 'Chat actions' }).click();
  await page
    .locator('#chat-menu-items')
    .getByRole(name === 'View full history' ? 'link' : 'button', { name })
    .click();
}

async function setChatAutoCompaction(value: 'On' | 'Off' | 'As in settings'): Promise<void> {
  const title = (await page.getByRole('heading', { level: 1 }).textContent()) ?? '';
  await page.getByRole('button', { name: `Options for ${title}` }).click();
  const saved = page.waitForResponse((response) => response.request().method() === 'PATCH' && response.ok());
  await page.getByRole('combobox', { name: 'Auto-compaction for this chat' }).selectOption({ label: value });
  await saved;
  await page.getByRole('button', { name: `Options for ${title}` }).click();
}

describe.skipIf(!HAS_CHROMIUM)(
  HAS_CHROMIUM
    ? 'web app in Chromium (WEB-1..8)'
    : `web app in Chromium — skipped: ${CHROMIUM} is missing (apt-get install chromium)`,
  () => {
    beforeAll(async () => {
      ensureClientBuilt();
      mkdirSync(ARTIFACTS, { recursive: true });
      home = mkdtempSync(join(tmpdir(), 'chatfold-browser-'));
      mkdirSync(join(home, 'workspace'));
      writeFileSync(
        join(home, 'workspace', 'notes.md'),
        `# Notes\n\nTool output with ${HTML_PAYLOAD} and ${SCRIPT_PAYLOAD}.\n`,
      );
      fake = await startFakeProvider({ script: script(SUMMARY_TEXT) });
      writeFileSync(
        join(home, 'web-e2e.yaml'),
        [
          'name: web-e2e',
          'model:',
          '  provider: openai-compatible',
          '  name: chatfold-fake',
          `  baseURL: ${fake.url}/v1`,
          '  maxInputTokens: 6000',
          '  maxOutputTokens: 1024',
          'instructions: You are the web test assistant.',
          'tools: [read_file]',
        ].join('\n'),
      );
      serve = await startServe(serveArgs(), cleanEnv(home, { OPENAI_COMPATIBLE_API_KEY: API_KEY }));
      browser = await launchChromium();
      page = await openPage(`${serve.url}/`);
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await serve?.stop();
      await fake?.close();
      if (home !== undefined) rmSync(home, { recursive: true, force: true });
    });

    beforeEach((context) => {
      onTestFailed(async () => {
        await page.screenshot({
          path: join(ARTIFACTS, `failed-${context.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`),
        });
      });
    });

    it('streams an answer (WEB-1)', async () => {
      // A real model (the agent file's), so no keyless-try label.
      await expect(page.getByRole('note').filter({ hasText: 'Fake provider' }).count()).resolves.toBe(0);
      await newChat();
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill(`Hello [slow] ${'streaming words '.repeat(30)}`);
      await box.press('Enter');
      const answering = page.getByRole('article', { name: 'Assistant, answering' });
      await answering.waitFor();
      const lengths = new Set<number>();
      for (let i = 0; i < 40 && (await answering.count()) > 0; i++) {
        lengths.add(((await answering.textContent().catch(() => '')) ?? '').length);
        if (i === 5) await shot('01-streaming.png');
        await page.waitForTimeout(60);
      }
      expect(lengths.size).toBeGreaterThan(2); // the text grew while it streamed
      await answering.waitFor({ state: 'detached' });
      const stored = page.getByRole('article', { name: /^Assistant, message/ });
      await expect(stored.last().textContent()).resolves.toContain('streaming words');
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toMatch(/^Hello \[slow\]/);
    });

    it('shows tool calls compactly (WEB-1)', async () => {
      await send('please read the notes');
      const call = page.locator('details.tool', { hasText: 'Tool call' }).last();
      await expect(call.textContent()).resolves.toMatch(/Tool call\s*read_file/);
      const result = page.locator('details.tool', { hasText: 'Tool result' }).last();
      await expect(result.textContent()).resolves.toMatch(/Tool result\s*read_file\s*\d+ characters/);
      await expect(
        page
          .getByRole('article', { name: /^Assistant, message/ })
          .last()
          .textContent(),
      ).resolves.toContain('I read the notes.');
    });

    it('turns the gauge orange at 80 % and red at 95 % with auto-compaction off; the breakdown adds up (WEB-2)', async () => {
      await newChat();
      await setChatAutoCompaction('Off');
      await fillTo(86, 'gauge');
      let state = await gauge();
      expect(state.now / state.max).toBeGreaterThanOrEqual(0.8);
      expect(state.now / state.max).toBeLessThan(0.95);
      expect(state.level).toBe('warning');
      expect(state.colour).toBe('rgb(245, 124, 0)');
      await shot('02-gauge-orange.png');

      await page.getByRole('button', { name: 'Details' }).click();
      const breakdown = page.getByRole('region', { name: 'Context usage breakdown' });
      for (const label of [
        'System prompt',
        'Tool definitions',
        'Summary',
        'Messages',
        'Reserved output',
        'Safety margin',
        'Free',
      ]) {
        await expect(breakdown.getByRole('rowheader', { name: label }).count()).resolves.toBe(1);
      }
      const cells = await breakdown.getByRole('cell').allTextContents();
      const total = cells.reduce((sum, cell) => sum + Number(cell.replaceAll(',', '')), 0);
      await expect(breakdown.textContent()).resolves.toContain(
        `Context window: ${total.toLocaleString('en-US')} tokens`,
      );
      await page.getByRole('button', { name: 'Details' }).click();

      await fillTo(97, 'gauge-red');
      state = await gauge();
      expect(state.now / state.max).toBeGreaterThanOrEqual(0.95);
      expect(state.level).toBe('critical');
      expect(state.colour).toBe('rgb(211, 47, 47)');
      await shot('03-gauge-red.png');
    });

    it('announces an automatic compaction in a status region (WEB-3)', async () => {
      await setChatAutoCompaction('As in settings');
      // Where automatic compaction starts is the policy's business (chat-app: when the prompt
      // would reach the answer's reserve); the notice must follow the turn that did it.
      const notice = page.getByRole('status').filter({ hasText: 'History summarized automatically' });
      for (let turn = 0; turn < 4 && (await notice.count()) === 0; turn++) {
        await send(filler(`after-auto-on-${turn}`, 60));
      }
      await notice.waitFor();
      await expect(notice.textContent()).resolves.toMatch(
        /\d+ messages? added to the summary; context [\d,]+ → [\d,]+ tokens/,
      );
      const state = await gauge();
      expect(state.now / state.max).toBeLessThan(0.8);
      expect(state.level).toBe('ok');
      await page.getByRole('region', { name: 'Summary of earlier messages' }).waitFor();
      await shot('04-auto-compaction.png');
      // Right after the compaction and after a reload alike (WEB-2).
      await page.reload();
      await page.getByRole('region', { name: 'Summary of earlier messages' }).waitFor();
      expect(await gauge()).toEqual(state);
    });

    it('summarizes on request: cancel, confirm, progress, result (WEB-5)', async () => {
      await newChat();
      for (let turn = 1; turn <= 6; turn++) await send(filler(`turn-${turn}`, 200));
      await chatAction('Summarize conversation history');
      let dialog = page.getByRole('dialog', { name: 'Summarize conversation history' });
      await dialog.getByRole('button', { name: 'Cancel' }).waitFor();
      const facts = await dialog.locator('dd').allTextContents();
      expect(facts[0]).toBe('13');
      expect(Number(facts[1])).toBeGreaterThan(0);
      expect(facts[3]).toMatch(/[\d,]+ tokens/);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      await expect(page.getByRole('region', { name: 'Summary of earlier messages' }).count()).resolves.toBe(
        0,
      );

      // This time from the session's menu (FR-2.1.2), with a custom instruction.
      const title = (await page.getByRole('heading', { level: 1 }).textContent()) ?? '';
      await page.getByRole('button', { name: `Options for ${title}` }).click();
      await page.getByRole('button', { name: 'Summarize conversation history' }).first().click();
      dialog = page.getByRole('dialog', { name: 'Summarize conversation history' });
      await dialog
        .getByRole('textbox', { name: 'Custom instruction (optional)' })
        .fill('Keep every turn number.');
      await dialog.getByRole('button', { name: 'Summarize', exact: true }).click();
      await dialog.getByRole('progressbar', { name: 'Summarizing' }).waitFor();
      const soFar = dialog.getByRole('region', { name: 'Summary so far' });
      await soFar.locator('pre').waitFor();
      await shot('05-summarize-progress.png');
      const partial = (await soFar.textContent()) ?? '';
      await dialog.getByText(/^Done:/).waitFor({ timeout: 60_000 });
      expect(partial.length).toBeLessThan(SUMMARY_TEXT.length);
      await expect(dialog.getByText(/^Done:/).textContent()).resolves.toMatch(
        /\d+ messages summarized.*[\d,]+ tokens saved/s,
      );
      const preview = (await dialog.locator('blockquote').textContent()) ?? '';
      expect(preview).toBe(`${SUMMARY_TEXT.slice(0, 200)}…`);
      await shot('06-summarize-result.png');
      await dialog.getByRole('button', { name: 'Close' }).click();
      const panel = page.getByRole('region', { name: 'Summary of earlier messages' });
      await expect(panel.textContent()).resolves.toMatch(/\d+ messages summarized/);
      expect(JSON.stringify(fake.requests.at(-1)?.body)).toContain('Keep every turn number.');
    });

    it('shows a failed summary with Retry, the history untouched (WEB-5, FR-5.1.2)', async () => {
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill(`a long answer [slow] ${'word '.repeat(120)}`);
      await box.press('Enter');
      await page.getByRole('article', { name: 'Assistant, answering' }).waitFor();
      // While the turn runs, the session's menu still offers the summary; the server refuses it.
      const title = (await page.getByRole('heading', { level: 1 }).textContent()) ?? '';
      await page.getByRole('button', { name: `Options for ${title}` }).click();
      await page.getByRole('button', { name: 'Summarize conversation history' }).first().click();
      const dialog = page.getByRole('dialog', { name: 'Summarize conversation history' });
      await dialog.getByRole('button', { name: 'Summarize', exact: true }).click();
      const alert = dialog.getByRole('alert');
      await expect(alert.textContent()).resolves.toMatch(
        /Summarizing failed\..*a turn or a summary is already running.*history is unchanged/s,
      );
      await shot('07-summarize-error.png');
      await page
        .getByRole('article', { name: 'Assistant, answering' })
        .waitFor({ state: 'detached', timeout: 60_000 });
      await dialog.getByRole('button', { name: 'Retry' }).click();
      await dialog.getByText(/^(Done|Nothing was summarized):/).waitFor({ timeout: 60_000 });
      await dialog.getByRole('button', { name: 'Close' }).click();
    });

    it('regenerates the summary from the original messages (WEB-4)', async () => {
      // From the stored originals (the engine's compact({ from: 'originals' })), never from the old summary.
      for (let turn = 7; turn <= 10; turn++) await send(filler(`turn-${turn}`, 200));
      fake.configure({
        script: script('## Context and goal\nRegenerated from the originals: turn-1 to turn-10.'),
      });
      const panel = page.getByRole('region', { name: 'Summary of earlier messages' });
      await panel.getByRole('button', { name: 'Regenerate summary' }).click();
      const dialog = page.getByRole('dialog', { name: 'Regenerate summary' });
      await expect(dialog.textContent()).resolves.toContain('from the original messages');
      const before = (await gauge()).now;
      await dialog.getByRole('button', { name: 'Regenerate', exact: true }).click();
      const done = dialog.getByText(/^Done:/);
      await done.waitFor({ timeout: 60_000 });
      // The tokens saved are the gauge's own before → after, not the originals' size.
      const after = (await gauge()).now;
      await expect(done.textContent()).resolves.toContain(
        `Context ${before.toLocaleString('en-US')} → ${after.toLocaleString('en-US')} tokens`,
      );
      await dialog.getByRole('button', { name: 'Close' }).click();
      await panel.getByRole('button', { name: 'Summary of earlier messages' }).click();
      await expect(panel.textContent()).resolves.toContain('Regenerated from the originals');
      await panel.getByRole('button', { name: 'View summary' }).click();
      const full = page.getByRole('dialog', { name: 'Conversation summary' });
      await expect(full.textContent()).resolves.toContain('Regenerated from the originals');
      await full.getByRole('button', { name: 'Close' }).click();
      await page.getByRole('meter', { name: 'Context usage' }).hover();
      await shot('08-summary-panel.png');
      fake.configure({ script: script(SUMMARY_TEXT) });
    });

    it('finds a summarized message in the full history, marked as not the active context (WEB-6)', async () => {
      await chatAction('View full history');
      await page.getByRole('heading', { name: 'Full history' }).waitFor();
      await expect(
        page.getByRole('note').filter({ hasText: 'This is not the active context.' }).count(),
      ).resolves.toBe(1);
      await page.getByRole('searchbox', { name: 'Search history' }).fill('turn-3');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText(/messages? match “turn-3”/).waitFor();
      const results = page.getByRole('region', { name: 'History messages' }).getByRole('article');
      expect(await results.count()).toBeGreaterThan(0);
      const badges = await results.locator('.state-badge').allTextContents();
      expect(badges).toContain('summarized');
      for (const text of await results.allTextContents()) expect(text).toContain('turn-3');
      const compactions = page.getByRole('table', { name: 'Compactions' });
      expect(await compactions.getByRole('row').count()).toBeGreaterThanOrEqual(3); // header + 2
      await expect(compactions.textContent()).resolves.toMatch(/manual/);
      await shot('09-history.png');
      await page.getByRole('link', { name: 'Back to the chat' }).click();
      // The chat view is back (its message box) before its title is read: reading the heading
      // at once could still see the history page's "Full history".
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      await page.getByRole('heading', { level: 1, name: 'Full history' }).waitFor({ state: 'detached' });
      // Switching chats from the list (WEB-1): the first chat, then back.
      const current = (await page.getByRole('heading', { level: 1 }).textContent()) ?? '';
      await page
        .getByRole('navigation', { name: 'Chats' })
        .getByRole('link', { name: /^Hello \[slow\]/ })
        .click();
      await page.getByRole('heading', { level: 1, name: /^Hello \[slow\]/ }).waitFor();
      await expect(
        page
          .getByRole('article', { name: /^Assistant, message/ })
          .first()
          .textContent(),
      ).resolves.toContain('streaming words');
      await page.getByRole('navigation', { name: 'Chats' }).getByRole('link', { name: current }).click();
      await page.getByRole('heading', { level: 1, name: current }).waitFor();
    });

    it('keeps settings across a server restart (WEB-7)', async () => {
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      await page.getByRole('checkbox', { name: /Tell me when the history was compacted/ }).uncheck();
      await page.getByRole('spinbutton', { name: /Recent tokens always kept verbatim/ }).fill('1500');
      await page.getByRole('spinbutton', { name: 'Threshold for chatfold-fake (%)' }).fill('90');
      await page.getByRole('textbox', { name: /Summarizer model/ }).fill('openai-compatible:chatfold-fake');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
      await shot('10-settings.png');

      await serve.stop();
      serve = await startServe(serveArgs(), cleanEnv(home, { OPENAI_COMPATIBLE_API_KEY: API_KEY }));
      await page.close();
      page = await openPage(`${serve.url}/#/settings`);
      await page.getByRole('heading', { name: 'Settings' }).waitFor();
      await page.getByRole('button', { name: 'Save settings' }).waitFor();
      expect(
        await page.getByRole('checkbox', { name: /Tell me when the history was compacted/ }).isChecked(),
      ).toBe(false);
      expect(await page.getByRole('checkbox', { name: /Compact automatically/ }).isChecked()).toBe(true);
      await expect(
        page.getByRole('spinbutton', { name: /Recent tokens always kept verbatim/ }).inputValue(),
      ).resolves.toBe('1500');
      await expect(
        page.getByRole('spinbutton', { name: 'Threshold for chatfold-fake (%)' }).inputValue(),
      ).resolves.toBe('90');
      await expect(page.getByRole('textbox', { name: /Summarizer model/ }).inputValue()).resolves.toBe(
        'openai-compatible:chatfold-fake',
      );
    });

    it('renders every XSS payload inert: messages, markdown, tool output, summaries, titles (WEB-8)', async () => {
      await page.goto(`${serve.url}/#/`);
      await newChat();
      await send(`user says ${HTML_PAYLOAD} ${SCRIPT_PAYLOAD} [x](javascript:window.__xss=8)`);
      await send('[xss-answer] please');
      await send('please read the notes');
      const title = (await page.getByRole('heading', { level: 1 }).textContent()) ?? '';
      await page.getByRole('button', { name: `Options for ${title}` }).click();
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.getByRole('textbox', { name: 'New title' }).fill(`${HTML_PAYLOAD}${SCRIPT_PAYLOAD}`);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: `${HTML_PAYLOAD}${SCRIPT_PAYLOAD}` }).waitFor();
      await page.getByRole('button', { name: `Options for ${HTML_PAYLOAD}${SCRIPT_PAYLOAD}` }).click();
      fake.configure({ script: script(`## Context\n${MARKDOWN_PAYLOAD}`) });
      for (let turn = 1; turn <= 3; turn++) await send(filler(`pad-${turn}`, 150));
      await chatAction('Summarize conversation history');
      const dialog = page.getByRole('dialog', { name: 'Summarize conversation history' });
      await dialog.getByRole('button', { name: 'Summarize', exact: true }).click();
      await dialog.getByText(/^(Done|Nothing was summarized):/).waitFor({ timeout: 60_000 });
      await dialog.getByRole('button', { name: 'Close' }).click();
      const panel = page.getByRole('region', { name: 'Summary of earlier messages' });
      await panel.getByRole('button', { name: 'Summary of earlier messages' }).click();
      await panel.getByRole('button', { name: 'View summary' }).click();
      await page.getByRole('dialog', { name: 'Conversation summary' }).waitFor();
      await shot('11-xss-summary.png');
      await page
        .getByRole('dialog', { name: 'Conversation summary' })
        .getByRole('button', { name: 'Close' })
        .click();
      // Expand every tool line so tool output is in the DOM as rendered.
      for (const details of await page.locator('details.tool').all())
        await details.evaluate((element) => element.setAttribute('open', ''));
      await shot('12-xss-chat.png');

      // Nothing ran, nothing became markup: only the app's own script tag is in the page.
      const INERT = { xss: undefined, images: 0, frames: 0, scripts: 1, javascriptLinks: 0, handlers: 0 };
      const inspect = () =>
        page.evaluate(() => {
          const scope = document.querySelectorAll(
            '.messages, .summary-panel, .sessions, .dialog, .history-list, .chat-title',
          );
          const within = (selector: string) =>
            [...scope].flatMap((root) => [...root.querySelectorAll(selector)]);
          return {
            xss: (window as unknown as { __xss?: number }).__xss,
            images: within('img').length,
            frames: within('iframe, object, embed, svg').length,
            scripts: document.querySelectorAll('script').length,
            javascriptLinks: [...document.querySelectorAll('a')].filter((a) =>
              /^\s*(javascript|data):/i.test(a.getAttribute('href') ?? ''),
            ).length,
            handlers: [...document.querySelectorAll('*')].filter((element) =>
              [...element.attributes].some((attribute) => attribute.name.startsWith('on')),
            ).length,
          };
        });
      expect(await inspect()).toEqual(INERT);
      // The payloads are shown as text: in the user's message, the title and the tool output.
      expect(await page.getByText(HTML_PAYLOAD, { exact: false }).count()).toBeGreaterThan(0);
      await expect(page.locator('.sessions').textContent()).resolves.toContain(HTML_PAYLOAD);

      await chatAction('View full history');
      await page.getByRole('heading', { name: 'Full history' }).waitFor();
      await page.getByRole('region', { name: 'History messages' }).getByRole('article').first().waitFor();
      expect(await inspect()).toEqual(INERT);
      expect(problems).toEqual([]);
      fake.configure({ script: script(SUMMARY_TEXT) });
    });

    it('needs the token on a non-loopback host; the page takes it from the URL fragment (WEB-8)', async () => {
      const guarded = await startServe(
        ['--host', '0.0.0.0', '--token', TOKEN, '--store', join(home, 'guarded.db'), '--fake-provider'],
        cleanEnv(home),
      );
      try {
        const base = guarded.url.replace('0.0.0.0', '127.0.0.1');
        const refused = await openPage(`${base}/`);
        await expect(refused.getByRole('alert').textContent()).resolves.toMatch(
          /The server refused the page: this server needs its access token/,
        );
        await refused.close();
        const allowed = await openPage(`${base}/#token=${TOKEN}`);
        await allowed.getByRole('button', { name: 'New chat', exact: true }).click();
        await allowed.getByRole('textbox', { name: 'Message' }).waitFor();
        expect(allowed.url()).not.toContain(TOKEN);
        await expect(
          allowed.getByRole('note').filter({ hasText: 'Fake provider — keyless try.' }).count(),
        ).resolves.toBe(1);
        await allowed.screenshot({ path: join(ARTIFACTS, '13-token.png') });
        await allowed.close();
        expect(guarded.output()).not.toContain(TOKEN);
      } finally {
        await guarded.stop();
      }
      expect(serve.output()).not.toContain(API_KEY);
      expect(problems).toEqual([]);
    });
  },
  300_000,
);
