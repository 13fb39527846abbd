import { useCallback, useEffect, useState } from 'preact/hooks';
import type { ServerInfo, WebSettings, WireSession } from '../../api-types.ts';
import { api } from './api.ts';
import { ChatView } from './components/chat-view.tsx';
import type { CompactionDialogMode } from './components/compaction-dialog.tsx';
import { FakeProviderBanner } from './components/fake-provider-banner.tsx';
import { HistoryView } from './components/history-view.tsx';
import { SessionList } from './components/session-list.tsx';
import { SettingsPage } from './components/settings-page.tsx';
import { href, navigate, useRoute } from './router.ts';

/** The web app: session list on the side; chat, full history or settings in the main area. */
export function App() {
  const route = useRoute();
  const [info, setInfo] = useState<ServerInfo | undefined>(undefined);
  const [sessions, setSessions] = useState<readonly WireSession[]>([]);
  const [settings, setSettings] = useState<WebSettings | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [requested, setRequested] = useState<{ sessionId: string; dialog: CompactionDialogMode } | undefined>(
    undefined,
  );

  useEffect(() => {
    Promise.all([
      api<ServerInfo>('/api/info'),
      api<{ sessions: WireSession[] }>('/api/sessions'),
      api<{ settings: WebSettings }>('/api/settings'),
    ]).then(
      ([loadedInfo, list, loadedSettings]) => {
        setInfo(loadedInfo);
        setSessions(list.sessions);
        setSettings(loadedSettings.settings);
      },
      (failure: Error) => setError(failure.message),
    );
  }, []);

  const upsert = useCallback((session: WireSession) => {
    setSessions((current) => {
      const known = current.find((other) => other.id === session.id);
      if (known !== undefined && JSON.stringify(known) === JSON.stringify(session)) return current;
      return [session, ...current.filter((other) => other.id !== session.id)].sort((a, b) =>
        b.updatedAt.localeCompare(a.updatedAt),
      );
    });
  }, []);

  const dialogOpened = useCallback(() => setRequested(undefined), []);
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
    <div class="layout">
      <aside class="sidebar">
        <a class="brand" href={href({ page: 'home' })}>
          chatfold
        </a>
        <SessionList
          sessions={sessions}
          currentId={currentId}
          onCreated={upsert}
          onUpdated={upsert}
          onSummarize={(sessionId) => {
            setRequested({ sessionId, dialog: 'summarize' });
            navigate({ page: 'chat', sessionId });
          }}
        />
        <nav class="sidebar-foot" aria-label="App">
          <a href={href({ page: 'settings' })} aria-current={route.page === 'settings' ? 'page' : undefined}>
            Settings
          </a>
          <p class="muted model" title="The model every chat uses">
            {info.agent} · {info.model}
          </p>
        </nav>
      </aside>
      <main class="main">
        {info.fakeProvider && <FakeProviderBanner />}
        {route.page === 'home' && (
          <section class="page" aria-labelledby="home-title">
            <h1 id="home-title">chatfold</h1>
            <p>
              Long conversations stay inside the model's context window: older messages are summarized,
              nothing is deleted. Start a new chat or pick one on the left.
            </p>
          </section>
        )}
        {route.page === 'chat' && (
          <ChatView
            key={route.sessionId}
            sessionId={route.sessionId}
            listed={sessions.find((session) => session.id === route.sessionId)}
            notifications={settings.notifications}
            requestedDialog={requested?.sessionId === route.sessionId ? requested.dialog : undefined}
            onDialogOpened={dialogOpened}
            onSessionChanged={upsert}
          />
        )}
        {route.page === 'history' && <HistoryView key={route.sessionId} sessionId={route.sessionId} />}
        {route.page === 'settings' && <SettingsPage info={info} onSaved={setSettings} />}
      </main>
    </div>
  );
}
