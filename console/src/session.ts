/** The API key lives in sessionStorage: this tab only, gone when it closes, never in a URL. */
const KEY = 'toolgate.console.apiKey';

export const storedKey = (): string | null => sessionStorage.getItem(KEY);
export const storeKey = (key: string): void => sessionStorage.setItem(KEY, key);
export const forgetKey = (): void => sessionStorage.removeItem(KEY);
