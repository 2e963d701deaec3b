/**
 * Where the API key lives: in this module's memory, and in `sessionStorage` only when the person
 * asked for the tab to remember it (gone when the tab closes). Never `localStorage`, a cookie
 * or a URL.
 */
const STORAGE_KEY = 'secadmin.console.apiKey';

export function rememberedKey(): string | undefined {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined; // storage disabled: the key lives in memory only
  }
}

export function storeKey(key: string, rememberInTab: boolean): void {
  try {
    if (rememberInTab) sessionStorage.setItem(STORAGE_KEY, key);
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // storage disabled: the key lives in memory only
  }
}

export function forgetKey(): void {
  try {
    sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // nothing stored
  }
}
