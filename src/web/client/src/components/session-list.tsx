import { useEffect, useRef, useState } from 'preact/hooks';
import type { WireSession } from '../../../api-types.ts';
import { call } from '../api.ts';
import { href, navigate } from '../router.ts';
import { Dialog } from './dialog.tsx';

/** Props of {@link SessionList}. */
export interface SessionListProps {
  readonly sessions: readonly WireSession[];
  readonly currentId: string | undefined;
  readonly onCreated: (session: WireSession) => void;
  readonly onUpdated: (session: WireSession) => void;
  readonly onDeleted: (sessionId: string) => void;
  /** "Summarize conversation history" from a session's menu (FR-2.1.2). */
  readonly onSummarize: (sessionId: string) => void;
}

/** Date groups of the list, newest first. */
const GROUPS = ['Today', 'Yesterday', 'Previous 7 days', 'Previous 30 days', 'Older'] as const;
type Group = (typeof GROUPS)[number];

/** Which date group a session's last activity falls in, by the browser's calendar days. */
export function dateGroup(iso: string, now: Date = new Date()): Group {
  const day = (date: Date): number => new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime();
  const days = Math.round((day(now) - day(new Date(iso))) / 86_400_000);
  if (days <= 0) return 'Today';
  if (days === 1) return 'Yesterday';
  if (days <= 7) return 'Previous 7 days';
  if (days <= 30) return 'Previous 30 days';
  return 'Older';
}

function SessionMenu({
  session,
  onUpdated,
  onSummarize,
  onDelete,
  onClose,
}: {
  readonly session: WireSession;
  readonly onUpdated: (session: WireSession) => void;
  readonly onSummarize: (sessionId: string) => void;
  readonly onDelete: () => void;
  readonly onClose: () => void;
}) {
  const [renaming, setRenaming] = useState(false);
  const [title, setTitle] = useState(session.title);
  const [error, setError] = useState<string | undefined>(undefined);
  const update = async (body: Record<string, string>): Promise<void> => {
    try {
      const { session: next } = await call('PATCH /api/sessions/:id', { id: session.id, body });
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
      <button type="button" class="menu-item menu-danger" onClick={onDelete}>
        Delete…
      </button>
      {error !== undefined && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </div>
  );
}

/** "Delete chat" confirmation: says what deleting does (hidden, kept in the store). */
function DeleteDialog({
  session,
  onDeleted,
  onClose,
}: {
  readonly session: WireSession;
  readonly onDeleted: (sessionId: string) => void;
  readonly onClose: () => void;
}) {
  const [error, setError] = useState<string | undefined>(undefined);
  return (
    <Dialog title="Delete this chat?" onClose={onClose}>
      <div class="stack">
        <p>
          “{session.title}” leaves the chat list and can no longer be opened. Its messages stay in the store
          with the time of deletion (the history is append-only), so an administrator can still audit it.
        </p>
        {error !== undefined && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <div class="dialog-buttons">
          <button type="button" class="secondary" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            class="danger"
            onClick={() => {
              call('DELETE /api/sessions/:id', { id: session.id }).then(
                () => {
                  onDeleted(session.id);
                  onClose();
                },
                (failure: Error) => setError(failure.message),
              );
            }}
          >
            Delete chat
          </button>
        </div>
      </div>
    </Dialog>
  );
}

/**
 * The chat list (WEB-1): new chat, a search of the titles (Ctrl+K), chats grouped by date,
 * and each chat's menu (rename, summarize, full history, auto-compaction, delete).
 */
export function SessionList({
  sessions,
  currentId,
  onCreated,
  onUpdated,
  onDeleted,
  onSummarize,
}: SessionListProps) {
  const [menuFor, setMenuFor] = useState<string | undefined>(undefined);
  const [deleting, setDeleting] = useState<WireSession | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [search, setSearch] = useState('');
  const searchBox = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        searchBox.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const create = async (): Promise<void> => {
    try {
      const { session } = await call('POST /api/sessions', { body: {} });
      onCreated(session);
      navigate({ page: 'chat', sessionId: session.id });
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  const needle = search.trim().toLowerCase();
  const shown = needle === '' ? sessions : sessions.filter((s) => s.title.toLowerCase().includes(needle));
  const now = new Date();
  const grouped = GROUPS.map((group) => ({
    group,
    items: shown.filter((session) => dateGroup(session.updatedAt, now) === group),
  })).filter((entry) => entry.items.length > 0);
  return (
    <nav class="sessions" aria-label="Chats">
      <button type="button" class="new-chat" onClick={() => void create()}>
        New chat
      </button>
      <input
        ref={searchBox}
        type="search"
        class="session-search"
        aria-label="Search chats"
        placeholder="Search chats (Ctrl+K)"
        value={search}
        onInput={(event) => setSearch((event.target as HTMLInputElement).value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setSearch('');
        }}
      />
      {error !== undefined && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {needle !== '' && shown.length === 0 && <p class="muted no-match">No chat title matches.</p>}
      {grouped.map(({ group, items }) => (
        <section key={group} class="session-group" aria-label={group}>
          <h2 class="session-group-title">{group}</h2>
          <ul>
            {items.map((session) => (
              <li key={session.id} class={session.id === currentId ? 'current' : undefined}>
                <div class="session-row">
                  <a
                    href={href({ page: 'chat', sessionId: session.id })}
                    aria-current={session.id === currentId ? 'page' : undefined}
                    class="session-link"
                    title={session.title}
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
                    onDelete={() => {
                      setMenuFor(undefined);
                      setDeleting(session);
                    }}
                    onClose={() => setMenuFor(undefined)}
                  />
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
      {deleting !== undefined && (
        <DeleteDialog session={deleting} onDeleted={onDeleted} onClose={() => setDeleting(undefined)} />
      )}
    </nav>
  );
}
