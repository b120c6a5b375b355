// The chat page: POST /api/v1/questions, then follow the question's Server-Sent Events
// (/api/v1/questions/{workflowId}/events: 'status' on every change, then 'answer'). Plain JS, no build step,
// nothing loaded from outside the app.
//
// Who asks: an anonymous web session. Before its first API call the page gets one with POST /api/v1/web-session;
// the server answers {visitorId, expiresAt} and sets the HttpOnly cookie qf_web, which then authenticates every
// fetch and the EventSource by itself (same origin). The page asks as that visitor (userId = visitorId, never a
// tier); when a call answers 401 (the session expired) it gets a new session once and tries again.
'use strict';

(function () {
  const API = '/api/v1/questions';
  const WEB_SESSION = '/api/v1/web-session';
  // renew a stored session this long before it expires rather than send a cookie about to be refused
  const EXPIRY_MARGIN_MS = 60 * 1000;
  // how often one question's event stream is reopened after the server refused it (e.g. 401 on an expired session)
  const MAX_REOPENS = 3;

  // crypto.randomUUID needs a secure context (https or localhost); getRandomValues works everywhere
  function uuid() {
    if (window.crypto && typeof crypto.randomUUID === 'function') {
      return crypto.randomUUID();
    }
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  // one conversation session per browser tab (sessionStorage), as a web chat widget would have
  function stored(key, prefix) {
    let value = sessionStorage.getItem(key);
    if (!value) {
      value = `${prefix}-${uuid()}`;
      sessionStorage.setItem(key, value);
    }
    return value;
  }
  const sessionId = stored('questionflow.sessionId', 'web');

  // the tab's web visitor, kept beside the session ID; the user the page asks as is always this visitor
  const VISITOR_KEY = 'questionflow.visitorId';
  const VISITOR_EXPIRES_KEY = 'questionflow.visitorExpiresAt';
  const USER_KEY = 'questionflow.userId';
  let visitor = storedVisitor(); // { id, expiresAt (ms) } or null
  let renewing = null; // the POST /api/v1/web-session in flight, shared by every caller

  function storedVisitor() {
    const id = sessionStorage.getItem(VISITOR_KEY);
    const expiresAt = Date.parse(sessionStorage.getItem(VISITOR_EXPIRES_KEY) || '');
    return id && Number.isFinite(expiresAt) ? { id, expiresAt } : null;
  }

  function usable(v) {
    return v != null && v.expiresAt - Date.now() > EXPIRY_MARGIN_MS;
  }

  /** A new anonymous web session: the server sets its cookie and names the visitor. */
  function newWebSession() {
    if (!renewing) {
      renewing = (async () => {
        let response;
        try {
          response = await fetch(WEB_SESSION, {
            method: 'POST',
            credentials: 'same-origin',
            headers: { Accept: 'application/json' },
          });
        } catch (e) {
          throw new Error(`Could not reach the service: ${e.message}`);
        }
        if (!response.ok) {
          throw new Error(`Could not start a web session (${await describeFailure(response)})`);
        }
        const body = await response.json();
        if (!body || typeof body.visitorId !== 'string' || body.visitorId === '') {
          throw new Error('Could not start a web session: the answer named no visitor');
        }
        const expiresAt = Date.parse(body.expiresAt);
        // an unreadable expiry: trust the cookie and let a 401 tell when it is over
        visitor = { id: body.visitorId, expiresAt: Number.isFinite(expiresAt) ? expiresAt : Number.MAX_SAFE_INTEGER };
        sessionStorage.setItem(VISITOR_KEY, visitor.id);
        sessionStorage.setItem(VISITOR_EXPIRES_KEY, new Date(Math.min(visitor.expiresAt, 8.64e15)).toISOString());
        sessionStorage.setItem(USER_KEY, visitor.id);
        return visitor;
      })().finally(() => {
        renewing = null;
      });
    }
    return renewing;
  }

  /** The tab's web session: the stored one while it lasts, else a new one. */
  function webSession() {
    return usable(visitor) ? Promise.resolve(visitor) : newWebSession();
  }

  /**
   * fetch() with the web session's cookie. `options` is an object, or a function of the visitor (a body that
   * names the visitor). A 401 (expired or unknown session) gets a new session and one retry; so does any status in
   * `retryOn` (the ask's 403: another tab of this browser took the cookie over for a visitor of its own).
   */
  async function apiFetch(url, options, retryOn = []) {
    const build = (v) => ({ credentials: 'same-origin', ...(typeof options === 'function' ? options(v) : options) });
    const used = await webSession();
    const response = await fetch(url, build(used));
    if (response.status !== 401 && !retryOn.includes(response.status)) {
      return response;
    }
    // another call may have renewed the session meanwhile: then use that one instead of starting a third
    const fresh = visitor !== used && usable(visitor) ? visitor : await newWebSession();
    return fetch(url, build(fresh));
  }

  const form = document.getElementById('ask-form');
  const input = document.getElementById('question');
  const send = document.getElementById('send');
  const formError = document.getElementById('form-error');
  const conversation = document.getElementById('conversation');
  const empty = document.getElementById('empty');
  const template = document.getElementById('turn-template');
  document.getElementById('session-id').textContent = sessionId;

  // what each answer level means for the customer (README: "The life of a question")
  const LEVELS = {
    RAG: 'answered by our assistant using our help articles',
    LLM: 'answered by our assistant',
    FAQ: 'standard answer from our help articles',
    KEYWORD: 'standard answer from our help articles',
    TEMPLATE: 'standard answer',
    TICKET: 'handed over to our support team',
    HUMAN: 'answered by our support team',
  };

  function part(turn, testid) {
    return turn.querySelector(`[data-testid="${testid}"]`);
  }

  // appends value to the turn's data-<name> list when it differs from the last one recorded
  function record(turn, name, value) {
    const list = turn.dataset[name] ? turn.dataset[name].split(',') : [];
    if (list[list.length - 1] !== String(value)) {
      list.push(String(value));
      turn.dataset[name] = list.join(',');
    }
  }

  function waitingText(position, eta) {
    const ahead = position === 0
      ? 'You are next'
      : `${position} ${position === 1 ? 'person' : 'people'} ahead of you`;
    return eta == null ? ahead : `${ahead}, about ${eta} s`;
  }

  function showError(turn, message) {
    const error = part(turn, 'error');
    error.textContent = message;
    error.hidden = false;
  }

  function showAnswer(turn, answer) {
    if (!answer) {
      return;
    }
    part(turn, 'answer').textContent = answer.text || '';
    part(turn, 'level').textContent = answer.level || '';
    part(turn, 'level-text').textContent = LEVELS[answer.level] ? `(${LEVELS[answer.level]})` : '';
    const notice = part(turn, 'notice');
    notice.textContent = answer.notice || '';
    notice.hidden = !answer.notice;
    part(turn, 'answer-box').hidden = false;
    turn.dataset.level = answer.level || '';
  }

  function showStatus(turn, status) {
    const stage = status.stage || 'UNKNOWN';
    turn.dataset.stage = stage;
    record(turn, 'stages', stage);
    part(turn, 'stage').textContent = stage;
    const position = part(turn, 'position');
    if (stage === 'WAITING_IN_QUEUE' && status.queuePosition != null) {
      position.textContent = waitingText(status.queuePosition, status.etaSeconds);
      position.hidden = false;
      record(turn, 'positions', status.queuePosition);
    } else {
      position.hidden = true;
      position.textContent = '';
    }
    // TICKETED carries the hand-over answer (level TICKET); ANSWERED the final one
    if (status.answer) {
      showAnswer(turn, status.answer);
    }
    if (stage === 'FAILED') {
      showError(turn, 'Sorry, this question could not be processed.');
    }
  }

  function finish(turn) {
    turn.dataset.done = 'true';
  }

  // the server's problem text (problem.js), with what a customer should do about a limit
  async function describeFailure(response) {
    let message = await window.problemText(response);
    const retryAfter = response.headers.get('Retry-After');
    if (response.status === 429) {
      message = `Too many questions right now (${message}).${retryAfter ? ` Please try again in ${retryAfter} s.` : ''}`;
    } else if (retryAfter) {
      message += ` (retry after ${retryAfter} s)`;
    }
    return message;
  }

  /** True once nothing more will come for the question: a final answer (a hand-over is not final) or a failure. */
  function isFinal(status) {
    return status.stage === 'FAILED'
      || (status.stage === 'ANSWERED' && status.answer != null && status.answer.level !== 'TICKET');
  }

  function follow(turn, workflowId) {
    // same origin: the browser sends the web session's cookie with the stream's request by itself
    const events = new EventSource(`${API}/${encodeURIComponent(workflowId)}/events`);
    events.addEventListener('status', (e) => {
      const status = JSON.parse(e.data);
      showStatus(turn, status);
      if (status.stage === 'FAILED') {
        finish(turn);
        events.close(); // the server ends the stream; do not let the browser reconnect forever
      }
    });
    events.addEventListener('answer', (e) => {
      showAnswer(turn, JSON.parse(e.data));
      finish(turn);
      events.close();
    });
    events.onerror = async () => {
      if (turn.dataset.done === 'true') {
        events.close();
        return;
      }
      if (events.readyState === EventSource.CLOSED) {
        // the server refused the stream (401: the web session expired; 404; ...): ask the status URL why, with a new
        // session if that is what it takes, and follow again while the question is still going
        try {
          const response = await apiFetch(`${API}/${encodeURIComponent(workflowId)}`,
            { headers: { Accept: 'application/json' } });
          if (response.ok) {
            const status = await response.json();
            showStatus(turn, status);
            const reopens = Number(turn.dataset.reopens || '0');
            if (isFinal(status)) {
              finish(turn);
            } else if (reopens < MAX_REOPENS) {
              turn.dataset.reopens = String(reopens + 1);
              follow(turn, workflowId);
            } else {
              showError(turn, 'Lost the live updates of this question; reload the page to see its answer.');
            }
          } else if (response.status === 404 && visitor && turn.dataset.visitorId !== visitor.id) {
            showError(turn, 'Your web session expired, so this question can no longer be followed here.');
          } else {
            showError(turn, await describeFailure(response));
          }
        } catch (e) {
          showError(turn, `Lost the connection: ${e.message}`);
        }
      }
      // CONNECTING: the browser reconnects by itself and the server sends the current status again
    };
  }

  async function ask(text) {
    const turn = template.content.firstElementChild.cloneNode(true);
    turn.id = `turn-${conversation.children.length + 1}`;
    part(turn, 'question-text').textContent = text;
    conversation.appendChild(turn);
    empty.hidden = true;

    const clientMsgId = uuid(); // the same on a retry: a second send of one question is one question
    let response;
    try {
      response = await apiFetch(API, (v) => {
        turn.dataset.visitorId = v.id;
        // a web visitor asks as itself (the server answers 403 otherwise) and never names a tier
        const body = { sessionId, userId: v.id, clientMsgId, text };
        return {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify(body),
        };
      }, [403]);
    } catch (e) {
      part(turn, 'stage').textContent = 'NOT SENT';
      turn.dataset.stage = 'NOT_SENT';
      showError(turn, e.message.startsWith('Could not') ? e.message : `Could not reach the service: ${e.message}`);
      finish(turn);
      return;
    }
    if (response.status !== 202) {
      part(turn, 'stage').textContent = 'NOT SENT';
      turn.dataset.stage = 'NOT_SENT';
      showError(turn, await describeFailure(response));
      finish(turn);
      return;
    }
    const accepted = await response.json();
    turn.dataset.workflowId = accepted.workflowId;
    part(turn, 'workflow-id').textContent = accepted.workflowId;
    part(turn, 'stage').textContent = 'RECEIVED';
    follow(turn, accepted.workflowId);
  }

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) {
      formError.textContent = 'Please type a question first.';
      formError.hidden = false;
      input.focus();
      return;
    }
    formError.hidden = true;
    send.disabled = true;
    try {
      await ask(text);
      input.value = '';
    } finally {
      send.disabled = false;
      input.focus();
    }
  });

  // the session before the first question, so sending does not wait for it; a failure here is reported (and the
  // session tried again) when a question is sent
  webSession().catch(() => {});

  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
})();
