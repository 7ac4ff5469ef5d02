/**
 * Headless Chromium for the report tests and screenshots: Debian's /usr/bin/chromium (installed
 * by scripts/install-chromium.sh, never a test tool's own browser download) driven by
 * playwright-core, launched with the flags that keep it off the network and a fresh profile
 * directory. Used by tests and scripts only (playwright-core is a development dependency).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export class ChromiumMissingError extends Error {}

export interface LaunchedChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Launches Chromium with a fresh --user-data-dir (a persistent context is how playwright passes
 * one). Throws ChromiumMissingError, naming the install script, when /usr/bin/chromium is absent.
 */
export async function launchChromium(opts: { viewport?: { width: number; height: number } } = {}): Promise<LaunchedChromium> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new ChromiumMissingError(`${CHROMIUM_PATH} is missing: run scripts/install-chromium.sh (it installs Debian's chromium package)`);
  }
  const { chromium } = await import('playwright-core');
  const profile = mkdtempSync(join(tmpdir(), 'qbft-lab-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      // Added to playwright's own defaults, which also pass the profile (--user-data-dir) and the debugging pipe.
      args: CHROMIUM_FLAGS,
      viewport: opts.viewport ?? { width: 1400, height: 900 },
      offline: true,
    });
  } catch (err) {
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
  return {
    context,
    close: async () => {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export type { Browser };
