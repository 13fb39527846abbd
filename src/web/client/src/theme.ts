import { useEffect, useState } from 'preact/hooks';

/** The colour theme: follow the system (`prefers-color-scheme`), or a fixed one. */
export type Theme = 'system' | 'light' | 'dark';

const THEME_KEY = 'chatfold.theme';
const DARK_QUERY = '(prefers-color-scheme: dark)';

function storedTheme(): Theme {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

/**
 * The theme in force, kept in local storage. `<html data-theme>` always holds the resolved
 * one (`light` or `dark`), following the system's preference live while the choice is
 * `system`, so the stylesheet has one set of colours per theme.
 */
export function useTheme(): [Theme, (theme: Theme) => void] {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useEffect(() => {
    if (theme === 'system') localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, theme);
    const system = window.matchMedia(DARK_QUERY);
    const apply = (): void => {
      const dark = theme === 'dark' || (theme === 'system' && system.matches);
      document.documentElement.setAttribute('data-theme', dark ? 'dark' : 'light');
    };
    apply();
    if (theme !== 'system') return undefined;
    system.addEventListener('change', apply);
    return () => system.removeEventListener('change', apply);
  }, [theme]);
  return [theme, setTheme];
}
