// Checks what a person sees of a workflow's input in the Temporal Web UI when the payloads are encrypted: with the
// app's codec endpoint and a staff token, the decoded question; without a token, no customer text.
//
//   UI_URL           e.g. http://127.0.0.1:8233 (required)
//   NAMESPACE        default "default"
//   WORKFLOW_ID      the workflow to open (required)
//   CODEC_ENDPOINT   the app's codec, e.g. http://127.0.0.1:8080/codec (required). Given to the UI as its codec
//                    endpoint (the UI then calls it from the browser, CORS preflight included), the way
//                    `temporal server start-dev --ui-codec-endpoint` or the UI's own "Codec Server" setting does.
//   STAFF_TOKEN      bearer token the browser adds to the codec calls (the UI's "pass the user access token"
//                    with an SSO sign-in); empty: the codec is called without credentials
//   EXPECT_TEXT      text the decoded input shows (required)
//   SCREENSHOT       PNG path (default temporal-ui-codec.png)
//   TIMEOUT_SECONDS  default 45
//
// Prints one JSON line: textFound (the page showed EXPECT_TEXT), codecCalls and their statuses. Exit 0 when the
// page loaded and the codec was called; the caller decides what textFound must be.
import { check, env, log, pageText, screenshot, useCodec, waitFor } from './lib.mjs';

const uiUrl = env('UI_URL').replace(/\/+$/, '');
const namespace = env('NAMESPACE', 'default');
const workflowId = env('WORKFLOW_ID');
const codecEndpoint = env('CODEC_ENDPOINT').replace(/\/+$/, '');
const token = env('STAFF_TOKEN', '');
const expected = env('EXPECT_TEXT');
const shot = env('SCREENSHOT', 'temporal-ui-codec.png');
const timeoutMs = Number(env('TIMEOUT_SECONDS', '45')) * 1000;

const detailUrl = `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
const result = { ok: false, detailUrl, codecEndpoint, withToken: token !== '', codecCalls: [], textFound: false };
let page;

await check(result, async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  await useCodec(context, uiUrl, codecEndpoint, token, (call) => result.codecCalls.push(call));
  page = await context.newPage();

  log(`opening ${detailUrl} with codec ${codecEndpoint} (${token ? 'staff token' : 'no credentials'})`);
  await page.goto(detailUrl, { waitUntil: 'load', timeout: 30000 });
  result.textFound = await waitFor(async () => (await pageText(page)).includes(expected), timeoutMs, 10000,
    () => page.reload({ waitUntil: 'load' }));
  if (!result.textFound) {
    // the input panel of the history page; what it shows instead (ciphertext or an error)
    result.inputShown = (await pageText(page)).slice(0, 2000);
  }
  result.screenshot = await screenshot(page, shot);
  if (result.codecCalls.length === 0) {
    throw new Error('the UI never called the codec endpoint');
  }
}, {
  onFailure: async () => {
    if (!result.screenshot) {
      result.screenshot = await screenshot(page, shot);
    }
  },
});
