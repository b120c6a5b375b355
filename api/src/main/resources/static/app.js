// The chat page: POST /api/v1/questions, then follow the question's Server-Sent Events
// (/api/v1/questions/{workflowId}/events: 'status' on every change, then 'answer'). Plain JS, no build step,
// nothing loaded from outside the app.
'use strict';

(function () {
  const API = '/api/v1/questions';

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

  // one session and one user per browser tab (sessionStorage), as a web chat widget would have
  function stored(key, prefix) {
    let value = sessionStorage.getItem(key);
    if (!value) {
      value = `${prefix}-${uuid()}`;
      sessionStorage.setItem(key, value);
    }
    return value;
  }
  const sessionId = stored('questionflow.sessionId', 'web');
  const userId = stored('questionflow.userId', 'web-user');

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

  // a problem-details body (application/problem+json) or whatever the server sent
  async function describeFailure(response) {
    let detail = '';
    try {
      const text = await response.text();
      try {
        const body = JSON.parse(text);
        detail = body.detail || body.title || text;
      } catch (notJson) {
        detail = text;
      }
    } catch (unreadable) {
      detail = '';
    }
    let message = `Error ${response.status}${detail ? `: ${detail}` : ''}`;
    const retryAfter = response.headers.get('Retry-After');
    if (response.status === 429) {
      message = `Too many questions right now (${message}).${retryAfter ? ` Please try again in ${retryAfter} s.` : ''}`;
    } else if (retryAfter) {
      message += ` (retry after ${retryAfter} s)`;
    }
    return message;
  }

  function follow(turn, workflowId) {
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
        // the server refused the stream (e.g. 404): ask the status URL why
        try {
          const response = await fetch(`${API}/${encodeURIComponent(workflowId)}`);
          if (response.ok) {
            showStatus(turn, await response.json());
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

    const body = { sessionId, userId, clientMsgId: uuid(), text };
    let response;
    try {
      response = await fetch(API, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(body),
      });
    } catch (e) {
      part(turn, 'stage').textContent = 'NOT SENT';
      showError(turn, `Could not reach the service: ${e.message}`);
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

  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
})();
