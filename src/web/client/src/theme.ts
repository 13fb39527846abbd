import { useEffect, useState } from 'preact/hooks';

/** The colour theme: follow the system (`prefers-color-scheme`), or a fixed one. */
export type Theme = 'system' | 'light' | 'dark';

const THEME_KEY = 'chatfold.theme';

function storedTheme(): Theme {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** The theme in force, kept in local storage and set as `data-theme` on `<html>`. */
export function useTheme(): [Theme, (theme: Theme) => void] {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  useEffect(() => {
    const root = document.documentElement;
    if (theme === 'system') {
      root.removeAttribute('data-theme');
      localStorage.removeItem(THEME_KEY);
    } else {
      root.setAttribute('data-theme', theme);
      localStorage.setItem(THEME_KEY, theme);
    }
  }, [theme]);
  return [theme, setTheme];
}
