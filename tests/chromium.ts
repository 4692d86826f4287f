import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/**
 * Debian's Chromium, or CHROMIUM_PATH: the browser tests are skipped without one. A helper
 * module, not a test file.
 */
export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p): p is string => !!p && existsSync(p),
);

/** Chromium, headless, as the browser tests run it: no sandbox (root in CI), no background traffic. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', ...extraArgs],
  });
}
