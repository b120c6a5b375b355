// A question no FAQ answers, from the customer's chat page to a person and back, in two browser contexts (two
// people, no shared cookies):
//   (a) the customer opens BASE_URL/ (the page gets its anonymous web session), sends QUESTION and waits for the
//       hand-over (stage TICKETED, answer level TICKET);
//   (b) a support agent opens BASE_URL/staff.html, signs in with STAFF_KEY, waits for the ticket with that question,
//       opens it and sends REPLY (202);
//   (c) the customer's page, still open, shows REPLY as the answer with level HUMAN (live, over its event stream).
// Saves screenshots and prints one JSON line with what it saw.
//
//   BASE_URL          e.g. http://127.0.0.1:8080 (required)
//   STAFF_KEY         a staff API key or an OIDC access token of a staff member (required unless TRIAL_TOKEN)
//   TRIAL_TOKEN       trial mode: both open the URL the app printed instead (BASE_URL/?token=…, BASE_URL/staff?token=…);
//                     the token must leave the address bar as an HttpOnly cookie, and the console signs in by itself
//   QUESTION          the customer's text (default: one no FAQ answers); unique per run, the ticket is found by it
//   REPLY             the agent's reply (default "A person answers: about 11 m/s.")
//   SCREENSHOT_DIR    where the PNGs go (default: e2e/target/screenshots, where chat-page.mjs's go in the Java tests):
//                     customer-ticketed.png, staff-console.png, customer-human-answer.png
//   TIMEOUT_SECONDS   how long each step may wait (default 90)
//
// Exit 0 when the customer's page showed the reply with level HUMAN, 1 otherwise (reason on stderr and in the JSON).
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { check, env, log, screenshot, sleep } from './lib.mjs';

const baseUrl = env('BASE_URL').replace(/\/+$/, '');
const trialToken = env('TRIAL_TOKEN', '');
const staffKey = trialToken ? '' : env('STAFF_KEY');
const question = env('QUESTION', 'What is the airspeed velocity of an unladen swallow?');
const reply = env('REPLY', 'A person answers: about 11 m/s.');
const shotDir = env('SCREENSHOT_DIR', resolve(dirname(fileURLToPath(import.meta.url)), '..', 'target', 'screenshots'));
const timeoutMs = Number(env('TIMEOUT_SECONDS', '90')) * 1000;

const seen = {
  ok: false,
  question,
  reply,
  visitorId: null,
  webSessionCookie: null,
  askedAs: null,
  workflowId: null,
  ticketId: null,
  stages: [],
  level: null,
  answer: null,
  screenshots: {},
};
const problems = []; // uncaught page errors, console errors and requests that left the app (both pages work offline)
let customer;
let staff;
const started = Date.now();
const elapsed = (since) => Number(((Date.now() - since) / 1000).toFixed(1));

function watch(page, who) {
  const origin = new URL(baseUrl).origin;
  page.on('pageerror', (e) => problems.push(`${who} page error: ${e.message}`));
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) {
      problems.push(`${who} request outside the app: ${url}`);
    }
  });
  page.on('console', (m) => {
    log(`${who} console.${m.type()}: ${m.text()}`);
    if (m.type() === 'error') {
      problems.push(`${who} console error: ${m.text()} (${m.location().url || 'no location'})`);
    }
  });
}

/** Polls check() every 100 ms until it returns a truthy value; fails with describe()'s text after the timeout. */
async function until(what, check, describe = async () => '') {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`${what}: not within ${timeoutMs / 1000} s ${await describe()}`.trim());
    }
    await sleep(100);
  }
}

/** What the customer's last question shows right now (the same reading as chat-page.mjs). */
async function readTurn() {
  return customer.evaluate(() => {
    const turns = document.querySelectorAll('[data-testid="turn"]');
    const turn = turns[turns.length - 1];
    if (!turn) {
      return null;
    }
    const part = (id) => turn.querySelector(`[data-testid="${id}"]`);
    const shown = (id) => !part(id).hidden && !part(id).closest('[hidden]');
    return {
      workflowId: part('workflow-id').textContent || null,
      stage: part('stage').textContent,
      stages: turn.dataset.stages ? turn.dataset.stages.split(',') : [],
      answerShown: shown('answer-box'),
      answer: part('answer').textContent || null,
      level: part('level').textContent || null,
      error: shown('error') ? part('error').textContent : null,
    };
  });
}

let lastLine = '';
async function customerTurn() {
  const state = await readTurn();
  if (state) {
    const line = `${state.stage} ${state.level ?? ''}`.trim();
    if (line !== lastLine) {
      log(`customer ${elapsed(started)} s: ${line}`);
      lastLine = line;
    }
    Object.assign(seen, { workflowId: state.workflowId, stages: state.stages, level: state.level, answer: state.answer });
    if (state.error) {
      throw new Error(`the customer's page shows an error: ${state.error}`);
    }
  }
  return state;
}

/** Trial mode: the printed URL left the token as an HttpOnly, SameSite=Strict cookie and dropped it from the URL. */
async function checkTrialLink(page, context, path) {
  if (page.url() !== `${baseUrl}${path}`) {
    throw new Error(`the trial URL must redirect to ${baseUrl}${path}, the page is at ${page.url()}`);
  }
  const cookie = (await context.cookies(baseUrl)).find((c) => c.name === 'qf_trial');
  if (!cookie || cookie.value !== trialToken || !cookie.httpOnly || cookie.sameSite !== 'Strict') {
    throw new Error(`the trial URL must set the HttpOnly, SameSite=Strict qf_trial cookie, got ${JSON.stringify(cookie)}`);
  }
  seen.trialCookie = { httpOnly: cookie.httpOnly, sameSite: cookie.sameSite, path: cookie.path };
}

async function shoot(page, name) {
  const file = await screenshot(page, join(shotDir, name));
  seen.screenshots[name.replace(/\.png$/, '')] = file;
  return file;
}

await check(seen, async (browser) => {
  log(`Chromium ${browser.version()}, app ${baseUrl}`);

  // (a) the customer
  const customerContext = await browser.newContext({ viewport: { width: 900, height: 700 } });
  customer = await customerContext.newPage();
  watch(customer, 'customer');
  customer.on('request', (r) => {
    if (r.method() === 'POST' && new URL(r.url()).pathname === '/api/v1/questions') {
      try {
        const body = JSON.parse(r.postData() || '{}');
        seen.askedAs = { userId: body.userId ?? null, tier: body.tier ?? null };
      } catch (e) {
        problems.push(`the question's body is not JSON: ${e.message}`);
      }
    }
  });
  const webSession = customer.waitForResponse(
    (r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/api/v1/web-session',
    { timeout: 30000 });
  await customer.goto(trialToken ? `${baseUrl}/?token=${trialToken}` : `${baseUrl}/`, { waitUntil: 'load', timeout: 30000 });
  if (trialToken) {
    await checkTrialLink(customer, customerContext, '/');
  }
  const sessionResponse = await webSession;
  if (sessionResponse.status() !== 200) {
    throw new Error(`POST /api/v1/web-session answered ${sessionResponse.status()}: ${await sessionResponse.text()}`);
  }
  const session = await sessionResponse.json();
  seen.visitorId = session.visitorId;
  const cookie = (await customerContext.cookies(baseUrl)).find((c) => c.name === 'qf_web');
  seen.webSessionCookie = cookie
    ? { httpOnly: cookie.httpOnly, sameSite: cookie.sameSite, path: cookie.path, secure: cookie.secure } : null;
  log(`customer: web session of ${seen.visitorId} until ${session.expiresAt}, cookie ${JSON.stringify(seen.webSessionCookie)}`);
  if (!seen.webSessionCookie) {
    throw new Error('the web session set no qf_web cookie');
  }
  if (!cookie.httpOnly || cookie.sameSite !== 'Strict') {
    throw new Error(`the qf_web cookie must be HttpOnly and SameSite=Strict, got ${JSON.stringify(seen.webSessionCookie)}`);
  }
  if ((await customer.evaluate(() => document.cookie)).includes('qf_web')) {
    throw new Error('the page script can read the qf_web cookie');
  }

  await customer.getByLabel('Your question').fill(question);
  await customer.getByRole('button', { name: 'Send' }).click();
  const asked = Date.now();
  log(`customer sent: ${question}`);
  await until('the hand-over on the customer\'s page (stage TICKETED, level TICKET)', async () => {
    const state = await customerTurn();
    if (state && state.answerShown && state.level && state.level !== 'TICKET') {
      throw new Error(`the question was answered at level ${state.level} instead of being handed over: ${state.answer}`);
    }
    return state && state.stage === 'TICKETED' && state.answerShown && state.level === 'TICKET';
  }, async () => `(last: ${JSON.stringify(await readTurn())})`);
  seen.secondsToTicket = elapsed(asked);
  seen.ticketAnswer = seen.answer;
  log(`customer: handed over after ${seen.secondsToTicket} s: ${seen.answer}`);
  if (!seen.workflowId || !/^q-/.test(seen.workflowId)) {
    throw new Error(`no workflow ID shown (got ${seen.workflowId})`);
  }
  if (!seen.askedAs || seen.askedAs.userId !== seen.visitorId || seen.askedAs.tier !== null) {
    throw new Error(`the page must ask as its visitor ${seen.visitorId} without a tier, sent ${JSON.stringify(seen.askedAs)}`);
  }
  await shoot(customer, 'customer-ticketed.png');

  // (b) the agent, in a browser context of its own
  const staffContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  staff = await staffContext.newPage();
  watch(staff, 'staff');
  if (trialToken) {
    await staff.goto(`${baseUrl}/staff?token=${trialToken}`, { waitUntil: 'load', timeout: 30000 });
    await checkTrialLink(staff, staffContext, '/staff');
  } else {
    await staff.goto(`${baseUrl}/staff.html`, { waitUntil: 'load', timeout: 30000 });
    await staff.locator('#staff-token').fill(staffKey);
    await staff.locator('#staff-signin').click();
  }
  await until('signed in on the staff console', async () => {
    const error = await staff.locator('#staff-error').evaluate((e) => (e.hidden ? null : e.textContent));
    if (error) {
      throw new Error(`the staff console refused the sign-in: ${error}`);
    }
    return staff.locator('#staff-signout').isVisible();
  });
  seen.staffName = await staff.locator('#staff-name').textContent();
  log(`staff: signed in as ${seen.staffName}`);

  const ticketShown = Date.now();
  seen.ticketId = await until('the ticket with the customer\'s question in the open tickets', () =>
    staff.evaluate((text) => {
      const match = [...document.querySelectorAll('#tickets [data-ticket-id]')]
        .find((b) => b.querySelector('.ticket-question')?.textContent === text);
      return match ? match.dataset.ticketId : null;
    }, question),
  async () => `(the list shows ${await staff.locator('#tickets [data-ticket-id]').count()} tickets;`
    + ` ${await staff.locator('#tickets-updated').textContent()})`);
  seen.secondsToStaffList = elapsed(ticketShown);
  seen.waitingShown = await staff.locator(`[data-ticket-id="${seen.ticketId}"] .wait`).textContent();
  log(`staff: ticket ${seen.ticketId} listed (${seen.waitingShown})`);

  await staff.locator(`[data-ticket-id="${seen.ticketId}"]`).click();
  await until('the ticket\'s details', async () =>
    (await staff.locator('#ticket-question').textContent()) === question
      && (await staff.locator('#ticket-id').textContent()) === seen.ticketId);
  seen.candidates = await staff.locator('#candidates > li').count();
  seen.turns = await staff.locator('#turns > li').count();
  log(`staff: ticket opened, ${seen.candidates} FAQ candidates, ${seen.turns} recent turns`);

  await staff.locator('#reply-text').fill(reply);
  const replyResponse = staff.waitForResponse(
    (r) => r.request().method() === 'POST'
      && new URL(r.url()).pathname === `/api/v1/tickets/${encodeURIComponent(seen.ticketId)}/reply`,
    { timeout: 30000 });
  await staff.locator('#reply-send').click();
  const replied = Date.now();
  const response = await replyResponse;
  seen.replyStatus = response.status();
  seen.replyRequest = JSON.parse(response.request().postData() || '{}');
  if ('agent' in seen.replyRequest) {
    problems.push(`the reply names an agent (${seen.replyRequest.agent}): the agent is the signed-in identity`);
  }
  if (seen.replyStatus !== 202) {
    throw new Error(`POST /api/v1/tickets/${seen.ticketId}/reply answered ${seen.replyStatus}: ${await response.text()}`);
  }
  seen.replyStatusText = await until('the reply\'s status text on the staff console', async () => {
    const text = await staff.locator('#reply-status').textContent();
    return /\b202\b/.test(text) ? text : null;
  });
  log(`staff: ${seen.replyStatusText}`);
  await shoot(staff, 'staff-console.png');

  // (c) the customer's page, untouched since (a): the reply arrives over its event stream
  await until('the reply on the customer\'s page (level HUMAN)', async () => {
    const state = await customerTurn();
    return state && state.answerShown && state.level === 'HUMAN' && state.answer === reply;
  }, async () => `(last: ${JSON.stringify(await readTurn())})`);
  seen.secondsReplyToCustomer = elapsed(replied);
  log(`customer: the reply shown ${seen.secondsReplyToCustomer} s after it was sent`);
  await shoot(customer, 'customer-human-answer.png');

  if (problems.length > 0) {
    throw new Error(problems.join('; '));
  }
  if (seen.stages[seen.stages.length - 1] !== 'ANSWERED' || !seen.stages.includes('TICKETED')) {
    throw new Error(`expected the stages to go through TICKETED to ANSWERED, saw ${seen.stages.join(',')}`);
  }
}, {
  onFailure: async () => {
    // what each side showed when it failed
    if (customer && !seen.screenshots['customer-human-answer']) {
      await shoot(customer, 'customer-failed.png');
    }
    if (staff && !seen.screenshots['staff-console']) {
      await shoot(staff, 'staff-console.png');
    }
  },
  always: async () => {
    seen.seconds = elapsed(started);
  },
});
