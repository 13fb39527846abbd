import type { SessionEvent } from './types.ts';

type Listener = (event: SessionEvent) => void;

/**
 * A session's listeners (HK-3): `on(fn)` or `on(type, fn)`, plus the `onEvent` option of
 * `createChatfold`. A listener that throws never fails the session's call; the other
 * listeners get a `listener-error` event instead (nothing is swallowed).
 */
export class SessionEvents {
  readonly #listeners = new Set<Listener>();
  readonly #option: Listener;

  constructor(option: Listener) {
    this.#option = option;
  }

  on(typeOrListener: SessionEvent['type'] | Listener, typed?: (event: never) => void): () => void {
    const listener: Listener =
      typeof typeOrListener === 'function'
        ? typeOrListener
        : (event) => {
            if (event.type === typeOrListener) (typed as Listener)(event);
          };
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  emit(event: SessionEvent): void {
    const failed: [Listener, unknown][] = [];
    const deliver = (listener: Listener, value: SessionEvent): void => {
      try {
        listener(value);
      } catch (error) {
        if (value.type !== 'listener-error') failed.push([listener, error]);
      }
    };
    deliver(this.#option, event);
    for (const listener of this.#listeners) deliver(listener, event);
    for (const [source, error] of failed) {
      const report: SessionEvent = { type: 'listener-error', eventType: event.type, error };
      for (const listener of this.#listeners) if (listener !== source) deliver(listener, report);
    }
  }
}
