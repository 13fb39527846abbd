/// <reference lib="dom" />
// The web app as a chat app (issue 23) in Debian's Chromium, against `chatfold serve` and an
// OpenAI-compatible server written for these tests (test/web/openai-compatible-stub.ts, not
// chatfold's fake provider): typing on arrival, failure is failure (FR-5.1.2: error, Retry,
// continue without summarizing, Cancel that stops the request), Stop keeps the partial answer,
// over-long input warned (FR-5.3.1), the full history scrolls in its pane and marks matches
// (FR-6.3.2), chat search / rename / delete, 375 px with a drawer, light and dark themes,
// axe-core. Screenshots of the main views go to docs/web-app/ (committed; the docs show them).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { CHROMIUM, HAS_CHROMIUM, launchChromium } from './chromium.ts';
import { ensureClientBuilt } from './client-build.ts';
import { filler } from './harness.ts';
import { type OpenAiCompatibleStub, startOpenAiCompatibleStub } from './openai-compatible-stub.ts';
import { cleanEnv, type ServeProcess, startServe } from './serve-process.ts';

const DOCS = fileURLToPath(new URL('../../docs/web-app/', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

const MARKDOWN_ANSWER = [
  'Here is the function, with its test:',
  '',
  '```ts',
  'export function fold(history: Message[], budget: number): Message[] {',
  '  // keep the newest messages that fit',
  "  return history.filter((message) => message.role !== 'system').slice(-budget);",
  '}',
  '```',
  '',
  '| Setting | Default |',
  '|---|---|',
  '| Threshold | 95 % |',
  '| Retention | 1,000 tokens |',
].join('\n');

let home: string;
let stub: OpenAiCompatibleStub;
let serve: ServeProcess;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const problems: string[] = [];

async function openPage(
  width: number,
  height: number,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<Page> {
  // Reduced motion: the drawer opens without its slide, so a screenshot shows it open.
  context = await browser.newContext({ viewport: { width, height }, colorScheme, reducedMotion: 'reduce' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const next = await context.newPage();
  next.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  next.on('console', (message) => {
    if (/Content Security Policy|Refused to/.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  await next.goto(`${serve.url}/`);
  return next;
}

/** Sends a message from the chat's box and waits for the stored turn. */
async function send(text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
  await page
    .getByRole('article', { name: 'Assistant, answering' })
    .waitFor({ state: 'detached', timeout: 60_000 });
  await page.getByRole('button', { name: 'Send' }).waitFor();
}

async function newChatWith(first: string): Promise<void> {
  await page.goto(`${serve.url}/#/`);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(first);
  await box.press('Enter');
  await page.waitForURL((url) => /#\/s\/[^/]+$/.test(url.hash));
  await page
    .getByRole('article', { name: 'Assistant, answering' })
    .waitFor({ state: 'detached', timeout: 60_000 });
  await page
    .getByRole('article', { name: /^Assistant, message/ })
    .first()
    .waitFor();
}

async function openSummarize(): Promise<ReturnType<Page['getByRole']>> {
  await page.getByRole('button', { name: 'Chat actions' }).click();
  await page
    .locator('#chat-menu-items')
    .getByRole('button', { name: 'Summarize conversation history' })
    .click();
  const dialog = page.getByRole('dialog', { name: 'Summarize conversation history' });
  await dialog.getByRole('button', { name: 'Summarize', exact: true }).waitFor();
  return dialog;
}

/** axe-core's violations of impact serious or critical on the page as it is now. */
async function seriousViolations(): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            context: Document,
          ) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document);
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 3),
    }));
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.targets.join(', ')}`);
}

const docShot = (name: string) => page.screenshot({ path: join(DOCS, name) });

describe.skipIf(!HAS_CHROMIUM)(
  HAS_CHROMIUM ? 'the web app as a chat app (issue 23)' : `web app — skipped: ${CHROMIUM} is missing`,
  () => {
    beforeAll(async () => {
      ensureClientBuilt();
      mkdirSync(DOCS, { recursive: true });
      mkdirSync(ARTIFACTS, { recursive: true });
      home = mkdtempSync(join(tmpdir(), 'chatfold-browser-app-'));
      mkdirSync(join(home, 'workspace'));
      stub = await startOpenAiCompatibleStub();
      stub.replies.set('[markdown]', MARKDOWN_ANSWER);
      writeFileSync(
        join(home, 'agent.yaml'),
        [
          'name: web-app-test',
          'model:',
          '  provider: openai-compatible',
          '  name: stub-model',
          `  baseURL: ${stub.url}/v1`,
          '  maxInputTokens: 6000',
          '  maxOutputTokens: 1024',
          'instructions: You are the web app test assistant.',
        ].join('\n'),
      );
      serve = await startServe(
        [
          // The default `chatfold serve`: summaries of automatic compactions written by workers
          // in the process, as a new user runs it.
          '--agent',
          join(home, 'agent.yaml'),
          '--store',
          join(home, 'chats.db'),
          '--workspace',
          join(home, 'workspace'),
        ],
        cleanEnv(home, { OPENAI_COMPATIBLE_API_KEY: 'sk-browser-app-key-0123456789' }),
      );
      browser = await launchChromium();
      page = await openPage(1280, 860);
    }, 180_000);

    afterAll(async () => {
      await browser?.close();
      await serve?.stop();
      await stub?.close();
      if (home !== undefined) rmSync(home, { recursive: true, force: true });
    });

    beforeEach((test) => {
      stub.summary = 'ok';
      stub.turn = 'echo';
      onTestFailed(async () => {
        await page.screenshot({
          path: join(ARTIFACTS, `app-failed-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`),
        });
      });
    });

    it('lets a newcomer type at once: the first message creates the chat, titled from it', async () => {
      const box = page.getByRole('textbox', { name: 'Message' });
      await expect(box.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
      await docShot('start-desktop-light.png');
      await page.keyboard.type('How do I fold a **long** `history`?');
      await page.keyboard.press('Enter');
      await page.waitForURL((url) => /#\/s\/[^/]+$/.test(url.hash));
      const answer = page.getByRole('article', { name: /^Assistant, message/ });
      await answer.first().waitFor();
      await expect(answer.first().textContent()).resolves.toContain('You said: How do I fold');
      // A sensible title: no markdown marks.
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        'How do I fold a long history?',
      );
      expect(problems).toEqual([]);
    });

    it('highlights code with a Copy button, styles tables, copies a message (Shift+Enter adds a line)', async () => {
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('Show me [markdown]');
      await box.press('Shift+Enter');
      await expect(box.inputValue()).resolves.toBe('Show me [markdown]\n');
      await box.press('Enter');
      const last = page.getByRole('article', { name: /^Assistant, message/ }).last();
      await last.locator('.hljs-keyword').first().waitFor();
      await docShot('chat-desktop-light.png');
      await expect(
        last
          .locator('table td')
          .first()
          .evaluate((cell) => getComputedStyle(cell).borderTopStyle),
      ).resolves.toBe('solid');
      await last.getByRole('button', { name: 'Copy code' }).click();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toContain(
        'export function fold',
      );
      await last.getByRole('button', { name: /^Copy message/ }).click();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toContain(
        'Here is the function',
      );
    });

    it('warns before sending an over-long message and marks it clipped once sent (FR-5.3.1)', async () => {
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('x '.repeat(400));
      const warning = page.getByRole('status').filter({ hasText: 'shortened in the middle' });
      await expect(warning.count()).resolves.toBe(0);
      const long = filler('too-long', 6000);
      await box.fill(long);
      await warning.waitFor();
      await expect(box.getAttribute('aria-describedby')).resolves.toBe('composer-warning');
      await box.fill('short again');
      await warning.waitFor({ state: 'detached' });
      await send(long);
      // The screen shows the whole message; its badge says the model got it shortened.
      const sent = page.getByRole('article', { name: /^You, message/ }).filter({ hasText: 'too-long:' });
      await expect(sent.locator('.state-badge').textContent()).resolves.toBe('clipped for the model');
      await expect(sent.textContent()).resolves.toContain(long.slice(-40));
    });

    it('a failed summary shows the error with Retry and "Continue without summarizing", never Done (FR-5.1.2)', async () => {
      await newChatWith('turn-1 of the failing chat');
      for (let turn = 2; turn <= 6; turn++) await send(filler(`turn-${turn}`, 200));
      const before = await page.getByRole('article').count();
      stub.summary = 'error-500';
      const dialog = await openSummarize();
      await dialog.getByRole('button', { name: 'Summarize', exact: true }).click();
      const alert = dialog.getByRole('alert');
      await expect(alert.textContent()).resolves.toMatch(/Summarizing failed\..*history is unchanged/s);
      await expect(dialog.getByText(/^Done/).count()).resolves.toBe(0);
      await dialog.getByRole('button', { name: 'Retry' }).waitFor();
      await docShot('summary-failed-desktop-light.png');
      await dialog.getByRole('button', { name: 'Continue without summarizing' }).click();
      await dialog.waitFor({ state: 'detached' });
      await expect
        .poll(() =>
          page
            .getByRole('textbox', { name: 'Message' })
            .evaluate((element) => element === document.activeElement),
        )
        .toBe(true);
      expect(await page.getByRole('article').count()).toBe(before);
      expect(serve.output()).toMatch(/"event":"summary-failed".*"mode":"summarize"/);
    });

    it('Cancel stops a summary that never comes: the request to the model server is closed', async () => {
      stub.summary = 'stall';
      const sent = stub.requests.filter((request) => request.kind === 'summary').length;
      const closed = stub.requests.filter(
        (request) => request.kind === 'summary' && request.closedEarly,
      ).length;
      const dialog = await openSummarize();
      await dialog.getByRole('button', { name: 'Summarize', exact: true }).click();
      await dialog.getByRole('progressbar', { name: 'Summarizing' }).waitFor();
      await stub.received('summary', sent + 1);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.getByText(/^Cancelled\./).waitFor();
      await stub.closed('summary', closed + 1);
      await dialog.getByRole('button', { name: 'Close' }).click();
    });

    it('a summary that works says what it did: the same count as the dialog announced, the notice cleared', async () => {
      await newChatWith('turn-1 of the working chat');
      for (let turn = 2; turn <= 6; turn++) await send(filler(`turn-${turn}`, 200));
      const dialog = await openSummarize();
      const toSummarize = (await dialog.locator('[data-fact="to-summarize"]').textContent()) ?? '';
      const gaugeBefore = await page
        .getByRole('meter', { name: 'Context usage' })
        .getAttribute('aria-valuenow');
      await dialog.getByRole('button', { name: 'Summarize', exact: true }).click();
      const done = dialog.getByText(/^Done:/);
      await done.waitFor({ timeout: 60_000 });
      const text = (await done.textContent()) ?? '';
      expect(text).toContain(`${toSummarize} message`);
      const gaugeAfter = await page
        .getByRole('meter', { name: 'Context usage' })
        .getAttribute('aria-valuenow');
      const fmt = (value: string | null) => Number(value).toLocaleString('en-US');
      expect(text).toContain(`Context ${fmt(gaugeBefore)} → ${fmt(gaugeAfter)} tokens`);
      await dialog.getByRole('button', { name: 'Close' }).click();
      await page.getByRole('region', { name: 'Summary of earlier messages' }).waitFor();
      await expect(page.locator('.notice').textContent()).resolves.toBe('');
    });

    it('Stop keeps the partial answer in place, no reload needed', async () => {
      stub.turn = 'partial-then-stall';
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill('tell me a long story');
      await box.press('Enter');
      const answering = page.getByRole('article', { name: 'Assistant, answering' });
      await answering.getByText('A partial answer').waitFor();
      await page.getByRole('button', { name: 'Stop' }).click();
      await answering.waitFor({ state: 'detached' });
      const last = page.getByRole('article', { name: /^Assistant, message/ }).last();
      await expect(last.textContent()).resolves.toContain('A partial answer that was cut short.');
    });

    it('the full history scrolls inside its pane (the page keeps the viewport) and marks matches (FR-6.3.2)', async () => {
      await page.getByRole('button', { name: 'Chat actions' }).click();
      await page.locator('#chat-menu-items').getByRole('link', { name: 'View full history' }).click();
      await page.getByRole('heading', { level: 1, name: 'Full history' }).waitFor();
      await page.getByRole('region', { name: 'History messages' }).getByRole('article').first().waitFor();
      await page.mouse.move(640, 500);
      for (let i = 0; i < 20; i++) await page.mouse.wheel(0, 2000);
      const sizes = await page.evaluate(() => ({
        page: document.scrollingElement?.scrollHeight ?? 0,
        viewport: window.innerHeight,
        scrolled: window.scrollY,
      }));
      if (sizes.page > sizes.viewport) {
        console.log(
          await page.evaluate(() =>
            [...document.querySelectorAll('body *')]
              .filter((element) => element.getBoundingClientRect().bottom > window.innerHeight + 5)
              .slice(0, 8)
              .map(
                (element) =>
                  `${element.tagName}.${element.className} ${Math.round(element.getBoundingClientRect().bottom)}`,
              )
              .join('\n'),
          ),
        );
      }
      expect(sizes.page).toBeLessThanOrEqual(sizes.viewport);
      expect(sizes.scrolled).toBe(0);
      await page.getByRole('searchbox', { name: 'Search history' }).fill('turn-3');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText(/messages? match “turn-3”/).waitFor();
      const marks = await page
        .getByRole('region', { name: 'History messages' })
        .locator('mark')
        .allTextContents();
      expect(marks.length).toBeGreaterThan(0);
      expect(new Set(marks.map((mark) => mark.toLowerCase()))).toEqual(new Set(['turn-3']));
      await docShot('history-desktop-light.png');
    });

    it('finds, renames and deletes chats (delete is confirmed); Ctrl+K focuses the search', async () => {
      await page.goto(`${serve.url}/#/`);
      await page.getByRole('heading', { level: 1, name: 'What would you like to talk about?' }).waitFor();
      await page.keyboard.press('Control+k');
      const search = page.getByRole('searchbox', { name: 'Search chats' });
      await expect(search.evaluate((element) => element === document.activeElement)).resolves.toBe(true);
      await search.fill('failing');
      const chats = page.getByRole('navigation', { name: 'Chats' }).getByRole('link');
      await expect(chats.allTextContents()).resolves.toEqual(['turn-1 of the failing chat']);
      await page.getByRole('button', { name: 'Options for turn-1 of the failing chat' }).click();
      await page.getByRole('button', { name: 'Delete…' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete this chat?' });
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      await expect(chats.count()).resolves.toBe(1);
      await page.getByRole('button', { name: 'Options for turn-1 of the failing chat' }).click();
      await page.getByRole('button', { name: 'Delete…' }).click();
      await confirm.getByRole('button', { name: 'Delete chat' }).click();
      await page.getByText('No chat title matches.').waitFor();
      await search.fill('');
      await page.getByRole('navigation', { name: 'Chats' }).getByRole('heading', { name: 'Today' }).waitFor();
    });

    it('has no serious axe-core violation on the start page, a chat, a dialog and the history', async () => {
      const found: string[] = [];
      await page.goto(`${serve.url}/#/`);
      await page.getByRole('textbox', { name: 'Message' }).waitFor();
      found.push(...(await seriousViolations()));
      await page
        .getByRole('navigation', { name: 'Chats' })
        .getByRole('link', { name: 'turn-1 of the working chat' })
        .click();
      await page.getByRole('region', { name: 'Summary of earlier messages' }).waitFor();
      found.push(...(await seriousViolations()));
      await openSummarize();
      found.push(...(await seriousViolations()));
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Chat actions' }).click();
      await page.locator('#chat-menu-items').getByRole('link', { name: 'View full history' }).click();
      await page.getByRole('region', { name: 'History messages' }).getByRole('article').first().waitFor();
      found.push(...(await seriousViolations()));
      expect(found).toEqual([]);
    });

    it('shows the chat-app policy whole on the settings page, with the settings applied', async () => {
      await page.getByRole('link', { name: 'Settings' }).click();
      const policy = page.getByRole('table', { name: 'Context policy' });
      await policy.waitFor();
      const row = async (name: string) =>
        (await policy
          .getByRole('row')
          .filter({ has: page.getByRole('rowheader', { name }) })
          .textContent()) ?? '';
      await expect(
        page.getByRole('region', { name: 'How chats keep within the context window' }).textContent(),
      ).resolves.toContain('chat-app');
      expect(await row('Automatic compaction')).toContain('95 % of the model');
      expect(await row('Never automatically below')).toContain('2,000 tokens');
      expect(await row('Safety margin')).toContain('5 % of the window');
      expect(await row('Kept verbatim after a summary')).toContain('1,000 tokens');
      expect(await row('The summary goes')).toContain('first system message');
      expect(await row('First user message kept apart')).toContain('no');
      expect(await row('“Summarize conversation history” covers')).toContain('all messages');
      // A setting changes the rule it names.
      await page.getByRole('spinbutton', { name: /Recent tokens always kept verbatim/ }).fill('1500');
      await expect.poll(() => row('Kept verbatim after a summary')).toContain('1,500 tokens');
      await page.getByRole('spinbutton', { name: /Recent tokens always kept verbatim/ }).fill('1000');
      await docShot('settings-desktop-light.png');
      await page
        .getByRole('region', { name: 'How chats keep within the context window' })
        .screenshot({ path: join(DOCS, 'policy-desktop-light.png') });
      expect(await seriousViolations()).toEqual([]);
    });

    it('dark theme: follows the system and the toggle; no serious axe-core violation', async () => {
      await context.close();
      page = await openPage(1280, 860, 'dark');
      await page
        .getByRole('navigation', { name: 'Chats' })
        .getByRole('link', { name: 'turn-1 of the working chat' })
        .click();
      await page.getByRole('region', { name: 'Summary of earlier messages' }).waitFor();
      const background = () =>
        page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--bg').trim());
      expect(await background()).toBe('#14181d');
      await docShot('chat-desktop-dark.png');
      expect(await seriousViolations()).toEqual([]);
      await page.getByRole('combobox', { name: 'Theme' }).selectOption('light');
      await expect.poll(background).toBe('#f6f7f9');
      await page.reload();
      await expect(page.getByRole('combobox', { name: 'Theme' }).inputValue()).resolves.toBe('light');
      expect(await background()).toBe('#f6f7f9');
      // Back to the system's (dark) preference.
      await page.getByRole('combobox', { name: 'Theme' }).selectOption('system');
      await expect.poll(background).toBe('#14181d');
    });

    it('fits 375 px: the chat list is a drawer, nothing scrolls sideways (light and dark)', async () => {
      for (const scheme of ['light', 'dark'] as const) {
        await context.close();
        page = await openPage(375, 760, scheme);
        const openList = page.getByRole('button', { name: 'Open the chat list' });
        await openList.waitFor();
        await expect(page.getByRole('navigation', { name: 'Chats' }).isVisible()).resolves.toBe(false);
        await docShot(`start-mobile-${scheme}.png`);
        await openList.click();
        const link = page
          .getByRole('navigation', { name: 'Chats' })
          .getByRole('link', { name: 'turn-1 of the working chat' });
        await link.waitFor({ state: 'visible' });
        await docShot(`drawer-mobile-${scheme}.png`);
        await link.click();
        await page.getByRole('region', { name: 'Summary of earlier messages' }).waitFor();
        await expect(page.getByRole('navigation', { name: 'Chats' }).isVisible()).resolves.toBe(false);
        const widths = await page.evaluate(() => ({
          scroll: document.scrollingElement?.scrollWidth ?? 0,
          chat: document.querySelector('.chat')?.getBoundingClientRect().width ?? 0,
        }));
        expect(widths.scroll).toBeLessThanOrEqual(375);
        expect(widths.chat).toBeGreaterThan(340);
        await docShot(`chat-mobile-${scheme}.png`);
        expect(await seriousViolations()).toEqual([]);
      }
      expect(problems).toEqual([]);
    });

    it('every main view at 375 px, light and dark: the history, the summarize dialog and the settings fit; no serious axe-core violation', async () => {
      for (const scheme of ['light', 'dark'] as const) {
        await context.close();
        page = await openPage(375, 760, scheme);
        await page.getByRole('button', { name: 'Open the chat list' }).click();
        await page
          .getByRole('navigation', { name: 'Chats' })
          .getByRole('link', { name: 'turn-1 of the working chat' })
          .click();
        await page.getByRole('region', { name: 'Summary of earlier messages' }).waitFor();
        const dialog = await openSummarize();
        await docShot(`summarize-mobile-${scheme}.png`);
        expect(await seriousViolations()).toEqual([]);
        await dialog.getByRole('button', { name: 'Cancel' }).click();
        await page.getByRole('button', { name: 'Chat actions' }).click();
        await page.locator('#chat-menu-items').getByRole('link', { name: 'View full history' }).click();
        await page.getByRole('region', { name: 'History messages' }).getByRole('article').first().waitFor();
        await docShot(`history-mobile-${scheme}.png`);
        expect(await seriousViolations()).toEqual([]);
        await page.getByRole('button', { name: 'Open the chat list' }).click();
        await page.getByRole('link', { name: 'Settings' }).click();
        await page.getByRole('table', { name: 'Context policy' }).waitFor();
        await docShot(`settings-mobile-${scheme}.png`);
        expect(await seriousViolations()).toEqual([]);
        // Nothing wider than the screen, the page itself or the settings pane.
        const widths = await page.evaluate(() => {
          const pane = document.querySelector('.page') as HTMLElement;
          return {
            document: document.scrollingElement?.scrollWidth ?? 0,
            pane: pane.scrollWidth - pane.clientWidth,
          };
        });
        expect(widths).toEqual({ document: 375, pane: 0 });
      }
      expect(problems).toEqual([]);
    });
  },
  300_000,
);
