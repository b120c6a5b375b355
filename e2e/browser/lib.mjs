// Shared by the browser scripts: the system Chromium through playwright-core (no browser is ever downloaded),
// screenshots, and the one JSON line each script prints on stdout.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export function env(name, fallback) {
  const value = process.env[name];
  if (value === undefined || value === '') {
    if (fallback === undefined) {
      throw new Error(`environment variable ${name} is required`);
    }
    return fallback;
  }
  return value;
}

/** Progress for people reading the test output: stderr, so stdout stays one JSON line. */
export function log(message) {
  process.stderr.write(`[${new Date().toISOString()}] ${message}\n`);
}

export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-dev-shm-usage'],
  });
}

/** Saves a full-page screenshot; never throws (a failed screenshot must not hide the real failure). */
export async function screenshot(page, path) {
  if (!page || !path) {
    return null;
  }
  try {
    const file = resolve(path);
    mkdirSync(dirname(file), { recursive: true });
    await page.screenshot({ path: file, fullPage: true, timeout: 15000 });
    log(`screenshot ${file}`);
    return file;
  } catch (e) {
    log(`screenshot ${path} failed: ${e.message}`);
    return null;
  }
}

/** "shot.png" + "-detail" = "shot-detail.png". */
export function withSuffix(path, suffix) {
  return /\.png$/i.test(path) ? path.replace(/\.png$/i, `${suffix}.png`) : `${path}${suffix}.png`;
}

export function emit(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
