/** Props of {@link CompactionNotice}. */
export interface CompactionNoticeProps {
  /** The notice text, or `undefined` when there is none. */
  readonly text: string | undefined;
  readonly onDismiss: () => void;
}

/**
 * The auto-compaction notice (WEB-3, FR-1.6): a polite live region (`role="status"`) that is
 * always in the page, so screen readers announce what is written into it; shows messages
 * summarized and the new token count. Turned off with the notifications setting (FR-1.6.4).
 */
export function CompactionNotice({ text, onDismiss }: CompactionNoticeProps) {
  return (
    <div role="status" class={text === undefined ? 'notice notice-empty' : 'notice'} aria-live="polite">
      {text !== undefined && (
        <>
          <span>{text}</span>
          <button type="button" class="link-button" onClick={onDismiss}>
            Dismiss
          </button>
        </>
      )}
    </div>
  );
}
