// Checks that the Temporal Web UI finds a workflow by a visibility query, and optionally what its page shows as
// the workflow's current details. Saves screenshots and prints one JSON line.
//
//   UI_URL               e.g. http://127.0.0.1:8233 (required)
//   NAMESPACE            default "default"
//   QUERY                visibility query, e.g. Stage="WAITING_IN_QUEUE" (required)
//   WORKFLOW_ID          the workflow the list must show (required)
//   SCREENSHOT           PNG path of the list (default temporal-ui.png); the workflow page goes to <name>-detail.png
//   EXPECT_DETAILS_TEXT  optional: text ("/regex/" also works) the workflow's Current Details must show (UI 2.4x: the
//                        workflow page's "User Metadata" tab). If this UI version does not render current details at
//                        all, that is reported (detailsRendered: false), not a failure.
//   DETAIL               0 to skip the workflow page (default 1)
//   TIMEOUT_SECONDS      per wait (default 45): the list is reloaded until the workflow shows up (visibility lags)
//   CODEC_ENDPOINT       optional: the app's codec (payloads, summaries and details are encrypted), with
//   STAFF_TOKEN          the bearer token the browser adds to its calls
//
// Exit 0 when the list showed the workflow (and the details text, where the UI renders details), 1 otherwise.
import { check, env, log, matcher, pageText, screenshot, sleep, useCodec, waitFor, waitForText, withSuffix } from './lib.mjs';

const uiUrl = env('UI_URL').replace(/\/+$/, '');
const namespace = env('NAMESPACE', 'default');
const query = env('QUERY');
const workflowId = env('WORKFLOW_ID');
const shot = env('SCREENSHOT', 'temporal-ui.png');
const expectDetails = env('EXPECT_DETAILS_TEXT', '');
const openDetail = env('DETAIL', '1') !== '0';
const timeoutMs = Number(env('TIMEOUT_SECONDS', '45')) * 1000;
const codecEndpoint = env('CODEC_ENDPOINT', '');
const staffToken = env('STAFF_TOKEN', '');

const listUrl = `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(query)}`;
const detailUrl = `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
const result = { ok: false, uiVersion: null, listUrl, listed: false };
let page;


/** Links of result rows to the workflow (its ID column). */
async function listedRows() {
  const href = `/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}/`;
  return page.locator(`a[href*="${href}"]`).filter({ hasText: workflowId }).count().catch(() => 0);
}


/** The Current Details panel's content (UI 2.4x: an iframe of /render?content=<markdown> under that heading). */
async function currentDetails() {
  return page.evaluate(() => {
    const heading = [...document.querySelectorAll('h1,h2,h3,h4')].find((h) => /current details/i.test(h.textContent));
    if (!heading) {
      return null;
    }
    let box = heading.parentElement;
    for (let up = 0; box && up < 5; up++, box = box.parentElement) {
      const frame = box.querySelector('iframe[src*="content="]');
      if (frame) {
        return new URL(frame.getAttribute('src'), location.href).searchParams.get('content');
      }
    }
    return '';
  });
}

await check(result, async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  if (codecEndpoint) {
    result.codecCalls = [];
    await useCodec(context, uiUrl, codecEndpoint, staffToken, (call) => result.codecCalls.push(call));
  }
  page = await context.newPage();
  page.on('pageerror', (e) => log(`page error: ${e.message}`));
  result.uiVersion = await fetch(`${uiUrl}/api/v1/settings`).then((r) => r.json()).then((s) => s.Version).catch(() => null);

  log(`opening ${listUrl} (UI ${result.uiVersion}, ${browser.version()})`);
  await page.goto(listUrl, { waitUntil: 'load', timeout: 30000 });
  // a result row links to /workflows/<id>/<runId>/...; the ID in the page text is not enough: the filter bar shows
  // the query, which may name the ID, also when nothing matched
  result.listed = await waitFor(() => listedRows().then((n) => n > 0), timeoutMs, 5000,
    () => page.reload({ waitUntil: 'load' }));
  result.rowsListed = await listedRows();
  result.screenshot = await screenshot(page, shot);
  if (!result.listed) {
    throw new Error(`the workflow list for ${query} did not show ${workflowId} within ${timeoutMs / 1000} s`);
  }
  log(`listed: ${workflowId}`);

  if (openDetail) {
    result.detailUrl = detailUrl;
    await page.goto(detailUrl, { waitUntil: 'load', timeout: 30000 });
    // the UI redirects to .../workflows/<id>/<runId>/history; the summary, static details and current details are
    // on its "User Metadata" tab (UI 2.4x), the current details fetched when the tab opens and on the R key
    await waitForText(page, workflowId, timeoutMs, 0);
    const tab = page.getByRole('tab', { name: 'User Metadata' });
    result.metadataTab = (await tab.count()) > 0;
    if (result.metadataTab) {
      await tab.first().click();
      await page.getByText('Current Details', { exact: true }).first().waitFor({ timeout: 15000 }).catch(() => {});
      result.detailUrl = page.url();
    }
    result.detailsRendered = (await page.getByText('Current Details', { exact: true }).count()) > 0;
    if (expectDetails) {
      result.expectedDetails = expectDetails;
      result.detailsTextFound = result.detailsRendered
        && (await waitFor(async () => {
          // the panel's own content, not the whole page (the header might contain the same words)
          const details = await currentDetails();
          return matcher(expectDetails)(details ?? (await pageText(page)));
        }, timeoutMs, 3000, () => page.keyboard.press('r')));
    } else if (result.detailsRendered) {
      await sleep(1500); // the panel fills in after the metadata query answers
    }
    result.currentDetails = result.detailsRendered ? await currentDetails() : null;
    log(`current details: ${JSON.stringify(result.currentDetails)}`);
    result.detailScreenshot = await screenshot(page, withSuffix(shot, '-detail'));
    if (expectDetails && !result.detailsTextFound) {
      if (result.detailsRendered) {
        throw new Error(`the workflow's Current Details show ${JSON.stringify(result.currentDetails)}, not "${expectDetails}"`);
      }
      result.note = `Temporal UI ${result.uiVersion} does not render the workflow's current details`;
      log(result.note);
    }
  }
}, {
  onFailure: async () => {
    if (!result.screenshot) {
      result.screenshot = await screenshot(page, shot);
    }
  },
});
