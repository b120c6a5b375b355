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

/**
 * One browser check: launches Chromium, runs `body(browser)`, and whatever happens closes the browser, prints
 * `result` as the script's one JSON line and sets the exit code (0 only when `body` returned; `result.ok` says the
 * same). When `body` throws, `result.reason` gets its message and `onFailure()` runs (e.g. a screenshot of what the
 * page showed); `always()` runs in either case, before the JSON line.
 */
export async function check(result, body, { onFailure = async () => {}, always = async () => {} } = {}) {
  let browser;
  let exitCode = 1;
  try {
    browser = await launch();
    await body(browser);
    result.ok = true;
    exitCode = 0;
  } catch (e) {
    result.reason = e.message;
    log(`FAILED: ${e.message}`);
    await onFailure();
  } finally {
    await always();
    if (browser) {
      await browser.close().catch(() => {});
    }
    emit(result);
    process.exitCode = exitCode;
  }
}

export function emit(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The text of the page and of its frames (the Web UI renders user metadata as markdown inside iframes). */
export async function pageText(page) {
  const texts = await Promise.all(
    page.frames().map((f) => f.locator('body').innerText({ timeout: 5000 }).catch(() => '')),
  );
  return texts.join('\n');
}

/** "text", or "/regex/" for changing text such as "position 7, about 9 s". */
export function matcher(expected) {
  const regex = /^\/(.+)\/([a-z]*)$/.exec(expected);
  return regex ? (text) => new RegExp(regex[1], regex[2]).test(text) : (text) => text.includes(expected);
}

/** Polls `condition` until it holds or `ms` pass, calling `refresh` every `refreshMs` (0: never). */
export async function waitFor(condition, ms, refreshMs, refresh) {
  const deadline = Date.now() + ms;
  let nextRefresh = Date.now() + refreshMs;
  while (Date.now() < deadline) {
    if (await condition()) {
      return true;
    }
    if (refreshMs > 0 && Date.now() > nextRefresh) {
      await refresh();
      nextRefresh = Date.now() + refreshMs;
    }
    await sleep(250);
  }
  return false;
}

/** Waits until the page (or one of its frames) shows `expected`. */
export async function waitForText(page, expected, ms, refreshMs, refresh) {
  const matches = matcher(expected);
  return waitFor(async () => matches(await pageText(page)), ms, refreshMs, refresh);
}

/**
 * Points the Web UI of `context` at a codec endpoint, as `temporal server start-dev --ui-codec-endpoint` or the UI's
 * own "Codec Server" setting would: its settings answer names `endpoint`. With a `token`, the browser adds it to the
 * codec calls as a bearer token (what the UI's "pass the user access token" does behind an SSO sign-in); without
 * one, the codec is called without credentials. `onCall` hears "POST /codec/decode 200" for each call.
 */
export async function useCodec(context, uiUrl, endpoint, token, onCall) {
  const codec = endpoint.replace(/\/+$/, '');
  await context.route(`${uiUrl}/api/v1/settings*`, async (route) => {
    const response = await route.fetch();
    const settings = await response.json();
    settings.Codec = { ...(settings.Codec ?? {}), Endpoint: codec, PassAccessToken: false, IncludeCredentials: false };
    await route.fulfill({ response, json: settings });
  });
  if (token) {
    await context.route(`${codec}/**`, (route) =>
      route.continue({ headers: { ...route.request().headers(), authorization: `Bearer ${token}` } }));
  }
  context.on('response', (response) => {
    if (response.url().startsWith(codec)) {
      onCall(`${response.request().method()} ${new URL(response.url()).pathname} ${response.status()}`);
    }
  });
  context.on('requestfailed', (request) => {
    if (request.url().startsWith(codec)) {
      onCall(`${request.method()} ${new URL(request.url()).pathname} failed: ${request.failure()?.errorText}`);
    }
  });
}
