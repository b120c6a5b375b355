// Drives the chat page of the app: opens BASE_URL/, sends QUESTION, follows what the page shows until the
// answer, saves a full-page screenshot and prints one JSON line with what it saw.
//
//   BASE_URL                 e.g. http://127.0.0.1:8080 (required)
//   QUESTION                 the text to send (default: a card question)
//   SCREENSHOT               PNG path (default: chat-page.png); the first moment a queue position is shown goes to
//                            <name>-waiting.png
//   EXPECT_POSITION_CHANGE=1 fail unless the page showed at least two different queue positions before the answer
//   TIMEOUT_SECONDS          how long to wait for the answer (default 90)
//
// Exit 0 when the answer was shown (and the expectations held), 1 otherwise (reason on stderr and in the JSON).
import { check, env, log, screenshot, sleep, withSuffix } from './lib.mjs';

const baseUrl = env('BASE_URL').replace(/\/+$/, '');
const question = env('QUESTION', 'I still have not received my new card');
const shot = env('SCREENSHOT', 'chat-page.png');
const expectPositionChange = env('EXPECT_POSITION_CHANGE', '0') === '1';
const timeoutMs = Number(env('TIMEOUT_SECONDS', '90')) * 1000;

const seen = { ok: false, workflowId: null, positions: [], stages: [], level: null, answer: null, notice: null };
const problems = []; // uncaught page errors and requests that left the app (the page must work offline)
let page;
const started = Date.now();

/** What the last question's turn shows right now. */
async function readTurn() {
  return page.evaluate(() => {
    const turns = document.querySelectorAll('[data-testid="turn"]');
    const turn = turns[turns.length - 1];
    if (!turn) {
      return null;
    }
    const text = (id) => turn.querySelector(`[data-testid="${id}"]`);
    const shown = (id) => !text(id).hidden && !text(id).closest('[hidden]');
    const split = (s) => (s ? s.split(',') : []);
    return {
      workflowId: text('workflow-id').textContent || null,
      stage: text('stage').textContent,
      positionText: shown('position') ? text('position').textContent : null,
      positions: split(turn.dataset.positions).map(Number),
      stages: split(turn.dataset.stages),
      answerShown: shown('answer-box'),
      answer: text('answer').textContent || null,
      level: text('level').textContent || null,
      notice: shown('notice') ? text('notice').textContent : null,
      error: shown('error') ? text('error').textContent : null,
    };
  });
}

await check(seen, async (browser) => {
  page = await browser.newPage({ viewport: { width: 900, height: 700 } });
  const origin = new URL(baseUrl).origin;
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) {
      problems.push(`request outside the app: ${url}`);
    }
  });
  page.on('console', (m) => {
    log(`console.${m.type()}: ${m.text()}`);
    if (m.type() === 'error') {
      problems.push(`console error: ${m.text()} (${m.location().url || 'no location'})`);
    }
  });

  log(`opening ${baseUrl}/ (${browser.version()})`);
  await page.goto(`${baseUrl}/`, { waitUntil: 'load', timeout: 30000 });
  await page.getByLabel('Your question').fill(question);
  await page.getByRole('button', { name: 'Send' }).click();
  log(`sent: ${question}`);

  let last = '';
  let state = null;
  const deadline = started + timeoutMs;
  for (;;) {
    state = await readTurn();
    if (state) {
      const line = `${state.stage} ${state.positionText ?? ''}`.trim();
      if (line !== last) {
        log(`${((Date.now() - started) / 1000).toFixed(1)} s: ${line}`);
        last = line;
      }
      Object.assign(seen, {
        workflowId: state.workflowId,
        positions: state.positions,
        stages: state.stages,
        level: state.level,
        answer: state.answer,
        notice: state.notice,
      });
      if (state.error) {
        throw new Error(`the page shows an error: ${state.error}`);
      }
      if (state.positionText && !seen.waitingScreenshot) {
        seen.waitingScreenshot = await screenshot(page, withSuffix(shot, '-waiting'));
      }
      if (state.answerShown && state.level) {
        break;
      }
    }
    if (Date.now() > deadline) {
      throw new Error(`no answer shown within ${timeoutMs / 1000} s (last: ${JSON.stringify(state)})`);
    }
    await sleep(100);
  }
  seen.secondsToAnswer = Number(((Date.now() - started) / 1000).toFixed(1));
  log(`answer after ${seen.secondsToAnswer} s: ${seen.level} ${seen.answer}`);

  if (problems.length > 0) {
    throw new Error(problems.join('; '));
  }
  if (!seen.workflowId || !/^q-/.test(seen.workflowId)) {
    throw new Error(`no workflow ID shown (got ${seen.workflowId})`);
  }
  const distinct = new Set(seen.positions);
  if (expectPositionChange && distinct.size < 2) {
    throw new Error(`expected at least two different queue positions before the answer, saw ${JSON.stringify(seen.positions)}`);
  }
}, {
  always: async () => {
    seen.screenshot = await screenshot(page, shot);
  },
});
