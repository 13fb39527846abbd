import { useState } from 'preact/hooks';
import type { WireSession } from '../../../api-types.ts';
import { api, sessionPath } from '../api.ts';
import { href, navigate } from '../router.ts';

/** Props of {@link SessionList}. */
export interface SessionListProps {
  readonly sessions: readonly WireSession[];
  readonly currentId: string | undefined;
  readonly onCreated: (session: WireSession) => void;
  readonly onUpdated: (session: WireSession) => void;
  /** "Summarize conversation history" from a session's menu (FR-2.1.2). */
  readonly onSummarize: (sessionId: string) => void;
}

function SessionMenu({
  session,
  onUpdated,
  onSummarize,
  onClose,
}: {
  readonly session: WireSession;
  readonly onUpdated: (session: WireSession) => void;
  readonly onSummarize: (sessionId: string) => void;
  readonly onClose: () => void;
}) {
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState(session.title);
  const [error, setError] = useState<string | undefined>(undefined);
  const update = async (body: Record<string, string>): Promise<void> => {
    try {
      const { session: next } = await api<{ session: WireSession }>(sessionPath(session.id), {
        method: 'PATCH',
        body,
      });
      onUpdated(next);
      setError(undefined);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <div class="session-menu" id={`session-menu-${session.id}`}>
      {renaming ? (
        <form
          class="rename"
          onSubmit={(event) => {
            event.preventDefault();
            void update({ title }).then(() => setRenaming(false));
          }}
        >
          <input
            type="text"
            aria-label="New title"
            maxLength={200}
            required
            value={title}
            onInput={(event) => setTitle((event.target as HTMLInputElement).value)}
          />
          <button type="submit">Save</button>
          <button type="button" class="secondary" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button type="button" class="menu-item" onClick={() => setRenaming(true)}>
          Rename
        </button>
      )}
      <button
        type="button"
        class="menu-item"
        onClick={() => {
          onClose();
          onSummarize(session.id);
        }}
      >
        Summarize conversation history
      </button>
      <a class="menu-item" href={href({ page: 'history', sessionId: session.id })} onClick={onClose}>
        View full history
      </a>
      <label class="field compact">
        <span>Auto-compaction for this chat</span>
        <select
          value={session.autoCompaction}
          onChange={(event) => void update({ autoCompaction: (event.target as HTMLSelectElement).value })}
        >
          <option value="inherit">As in settings</option>
          <option value="on">On</option>
          <option value="off">Off</option>
        </select>
      </label>
      {error !== undefined && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </div>
  );
}

/** The session list (WEB-1): new, switch, and each session's menu (rename, summarize, full history). */
export function SessionList({ sessions, currentId, onCreated, onUpdated, onSummarize }: SessionListProps) {
  const [menuFor, setMenuFor] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const create = async (): Promise<void> => {
    try {
      const { session } = await api<{ session: WireSession }>('/api/sessions', { method: 'POST', body: {} });
      onCreated(session);
      navigate({ page: 'chat', sessionId: session.id });
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <nav class="sessions" aria-label="Chats">
      <button type="button" class="new-chat" onClick={() => void create()}>
        New chat
      </button>
      {error !== undefined && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ul>
        {sessions.map((session) => (
          <li key={session.id} class={session.id === currentId ? 'current' : undefined}>
            <div class="session-row">
              <a
                href={href({ page: 'chat', sessionId: session.id })}
                aria-current={session.id === currentId ? 'page' : undefined}
                class="session-link"
              >
                {session.title}
              </a>
              <button
                type="button"
                class="icon-button"
                aria-label={`Options for ${session.title}`}
                aria-expanded={menuFor === session.id}
                aria-controls={`session-menu-${session.id}`}
                onClick={() => setMenuFor(menuFor === session.id ? undefined : session.id)}
              >
                ⋯
              </button>
            </div>
            {menuFor === session.id && (
              <SessionMenu
                session={session}
                onUpdated={onUpdated}
                onSummarize={onSummarize}
                onClose={() => setMenuFor(undefined)}
              />
            )}
          </li>
        ))}
      </ul>
    </nav>
  );
}
