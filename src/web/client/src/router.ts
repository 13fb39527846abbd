import { useEffect, useState } from 'preact/hooks';

/** The page the hash names: `#/s/ID`, `#/s/ID/history`, `#/settings`, or the start page. */
export type Route =
  | { readonly page: 'home' }
  | { readonly page: 'chat'; readonly sessionId: string }
  | { readonly page: 'history'; readonly sessionId: string }
  | { readonly page: 'settings' };

/** Parses a location hash. */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '');
  if (path === '/settings') return { page: 'settings' };
  const match = /^\/s\/([^/]+)(\/history)?$/.exec(path);
  if (match?.[1] !== undefined) {
    const sessionId = decodeURIComponent(match[1]);
    return match[2] === undefined ? { page: 'chat', sessionId } : { page: 'history', sessionId };
  }
  return { page: 'home' };
}

/** The hash of a route. */
export function href(route: Route): string {
  switch (route.page) {
    case 'home':
      return '#/';
    case 'settings':
      return '#/settings';
    case 'chat':
      return `#/s/${encodeURIComponent(route.sessionId)}`;
    case 'history':
      return `#/s/${encodeURIComponent(route.sessionId)}/history`;
  }
}

/** Navigates to a route. */
export function navigate(route: Route): void {
  window.location.hash = href(route);
}

/** The current route, updated on hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
