import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Chromium for the browser suites: Debian's package (.ci/run installs it with apt when
 * missing), or CHROMIUM_PATH. Outside CI a machine without it skips the suites with a
 * loud notice; in CI a missing browser fails them.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);

/** `describe` when chromium is there; otherwise (outside CI) one skipped test that says why. */
export function describeInBrowser(name: string, body: () => void): void {
  if (hasChromium || process.env.CI) {
    describe(name, body);
    return;
  }
  process.stderr.write(`\n*** ${name}: SKIPPED — no chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH) ***\n\n`);
  describe(name, () => {
    test.skip(`SKIPPED: no chromium at ${CHROMIUM}`, () => {});
  });
}

export function launchChromium(): Promise<Browser> {
  if (!hasChromium) throw new Error(`no chromium at ${CHROMIUM}: apt-get install chromium (CI installs it in .ci/run)`);
  // --no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** A page whose requests to any host but this machine are aborted, and counted. */
export interface OfflinePage {
  page: Page;
  context: BrowserContext;
  /** URLs the page asked for on other origins (aborted). */
  blocked: string[];
  /** Same-origin responses with an error status (4xx/5xx) and failed requests. */
  failures: string[];
  consoleErrors: string[];
}

/**
 * 1024 px wide by default: the console's card layout, one full card per item. From 1100 px the
 * inbox is a compact list with a detail pane (test/browser/console-queue.test.ts opens it at 1280).
 */
export async function offlinePage(browser: Browser, viewport = { width: 1024, height: 900 }): Promise<OfflinePage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const blocked: string[] = [];
  const failures: string[] = [];
  const consoleErrors: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    blocked.push(url.href);
    return route.abort('blockedbyclient');
  });
  page.on('requestfailed', (request) => failures.push(`${request.url()} ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) failures.push(`${response.status()} ${response.url()}`);
  });
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  return { page, context, blocked, failures, consoleErrors };
}
