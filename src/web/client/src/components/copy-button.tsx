import { useState } from 'preact/hooks';

/** A small "Copy" button that puts `text` on the clipboard and says so for a moment. */
export function CopyButton({ text, label }: { readonly text: string; readonly label: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | undefined>(undefined);
  return (
    <button
      type="button"
      class="icon-button message-action"
      aria-label={label}
      onClick={() => {
        navigator.clipboard.writeText(text).then(
          () => setCopied('yes'),
          () => setCopied('failed'),
        );
        setTimeout(() => setCopied(undefined), 1500);
      }}
    >
      {copied === 'yes' ? 'Copied' : copied === 'failed' ? 'Copy failed' : 'Copy'}
    </button>
  );
}
