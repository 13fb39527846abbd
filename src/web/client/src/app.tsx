import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ServerInfo, WebSettings, WireSession } from '../../api-types.ts';
import { call } from './api.ts';
import { ChatView } from './components/chat-view.tsx';
import type { CompactionDialogMode } from './components/compaction-dialog.tsx';
import { FakeProviderBanner } from './components/fake-provider-banner.tsx';
import { HistoryView } from './components/history-view.tsx';
import { SessionList } from './components/session-list.tsx';
import { SettingsPage } from './components/settings-page.tsx';
import { StartPage } from './components/start-page.tsx';
import { href, navigate, useRoute } from './router.ts';
import { type Theme, useTheme } from './theme.ts';

const THEME_LABEL: Record<Theme, string> = { system: 'System', light: 'Light', dark: 'Dark' };

/**
 * The web app: the chat list on the side (a drawer on a phone); the start page with its
 * message box, a chat, its full history or the settings in the main area.
 */
export function App() {
  const route = useRoute();
  const [info, setInfo] = useState<ServerInfo | undefined>(undefined);
  const [sessions, setSessions] = useState<readonly WireSession[]>([]);
  const [settings, setSettings] = useState<WebSettings | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [requested, setRequested] = useState<{ sessionId: string; dialog: CompactionDialogMode } | undefined>(
    undefined,
  );
  const [pending, setPending] = useState<{ sessionId: string; text: string } | undefined>(undefined);
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [theme, setTheme] = useTheme();

  useEffect(() => {
    Promise.all([
      call('GET /api/info', {}),
      call('GET /api/sessions', {}),
      call('GET /api/settings', {}),
    ]).then(
      ([loadedInfo, list, loadedSettings]) => {
        setInfo(loadedInfo);
        setSessions(list.sessions);
        setSettings(loadedSettings.settings);
      },
      (failure: Error) => setError(failure.message),
    );
  }, []);

  // Moving to another page closes the drawer (phone layout).
  useEffect(() => setDrawerOpen(false), [route]);

  const upsert = useCallback((session: WireSession) => {
    setSessions((current) => {
      const known = current.find((other) => other.id === session.id);
      if (known !== undefined && JSON.stringify(known) === JSON.stringify(session)) return current;
      return [session, ...current.filter((other) => other.id !== session.id)].sort((a, b) =>
        b.updatedAt.localeCompare(a.updatedAt),
      );
    });
  }, []);
  const removed = useCallback(
    (sessionId: string) => {
      setSessions((current) => current.filter((session) => session.id !== sessionId));
      if ((route.page === 'chat' || route.page === 'history') && route.sessionId === sessionId)
        navigate({ page: 'home' });
    },
    [route],
  );

  const startChat = async (text: string): Promise<void> => {
    try {
      const { session } = await call('POST /api/sessions', { body: {} });
      upsert(session);
      setPending({ sessionId: session.id, text });
      navigate({ page: 'chat', sessionId: session.id });
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  const dialogOpened = useCallback(() => setRequested(undefined), []);
  const initialTaken = useCallback(() => setPending(undefined), []);
  const currentId = route.page === 'chat' || route.page === 'history' ? route.sessionId : undefined;

  if (error !== undefined) {
    return (
      <main class="fatal">
        <h1>chatfold</h1>
        <p role="alert" class="error">
          The server refused the page: {error}
        </p>
      </main>
    );
  }
  if (info === undefined || settings === undefined) {
    return (
      <main class="fatal" aria-busy="true">
        <p class="muted">Loading…</p>
      </main>
    );
  }
  return (
    <div class={drawerOpen ? 'layout drawer-open' : 'layout'}>
      <aside class="sidebar" id="sidebar" aria-label="Chats and settings">
        <div class="sidebar-head">
          <a class="brand" href={href({ page: 'home' })}>
            chatfold
          </a>
          <button
            type="button"
            class="icon-button drawer-close"
            aria-label="Close the chat list"
            onClick={() => setDrawerOpen(false)}
          >
            ✕
          </button>
        </div>
        <SessionList
          sessions={sessions}
          currentId={currentId}
          onCreated={upsert}
          onUpdated={upsert}
          onDeleted={removed}
          onSummarize={(sessionId) => {
            setRequested({ sessionId, dialog: 'summarize' });
            navigate({ page: 'chat', sessionId });
          }}
        />
        <nav class="sidebar-foot" aria-label="App">
          <a href={href({ page: 'settings' })} aria-current={route.page === 'settings' ? 'page' : undefined}>
            Settings
          </a>
          <label class="theme-picker">
            <span>Theme</span>
            <select
              value={theme}
              onChange={(event) => setTheme((event.target as HTMLSelectElement).value as Theme)}
            >
              {(['system', 'light', 'dark'] as const).map((value) => (
                <option key={value} value={value}>
                  {THEME_LABEL[value]}
                </option>
              ))}
            </select>
          </label>
          <p class="muted model" title="The model every chat uses">
            {info.agent} · {info.model}
          </p>
        </nav>
      </aside>
      <button
        type="button"
        class="drawer-scrim"
        aria-hidden="true"
        tabIndex={-1}
        onClick={() => setDrawerOpen(false)}
      />
      <main class="main">
        <div class="mobile-bar">
          <button
            type="button"
            class="icon-button"
            aria-label="Open the chat list"
            aria-controls="sidebar"
            aria-expanded={drawerOpen}
            onClick={() => setDrawerOpen(true)}
          >
            ☰
          </button>
          <a class="brand" href={href({ page: 'home' })}>
            chatfold
          </a>
        </div>
        {info.fakeProvider && <FakeProviderBanner />}
        {route.page === 'home' && <StartPage onStart={(text) => void startChat(text)} />}
        {route.page === 'chat' && (
          <ChatView
            key={route.sessionId}
            sessionId={route.sessionId}
            listed={sessions.find((session) => session.id === route.sessionId)}
            notifications={settings.notifications}
            requestedDialog={requested?.sessionId === route.sessionId ? requested.dialog : undefined}
            onDialogOpened={dialogOpened}
            onSessionChanged={upsert}
            {...(pending?.sessionId === route.sessionId
              ? { initialMessage: pending.text, onInitialMessageTaken: initialTaken }
              : {})}
          />
        )}
        {route.page === 'history' && <HistoryView key={route.sessionId} sessionId={route.sessionId} />}
        {route.page === 'settings' && <SettingsPage info={info} onSaved={setSettings} />}
      </main>
    </div>
  );
}
