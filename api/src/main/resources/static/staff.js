// The support staff console (/staff.html, also /staff): sign in with a staff API key or an OIDC access token (both
// sent as Authorization: Bearer), see the open tickets longest waiting first, open one with its FAQ candidates and
// the session's recent turns, and reply; the reply becomes the question's answer (level HUMAN) on the customer's
// page. In trial mode, opening the URL the app printed (/staff?token=…) signs in as `local` by the trial cookie.
// Plain JS, no build step, nothing loaded from outside the app.
//
// Everything a customer wrote is untrusted: it is only ever put into the page as text (textContent), never as HTML.
'use strict';

(function () {
  const TOKEN_KEY = 'questionflow.staffToken';
  const REFRESH_MS = 5000;
  const LIST_URL = '/api/v1/tickets?status=OPEN&limit=100';

  const el = (id) => document.getElementById(id);
  const build = window.staffView; // staff-view.js: the elements of tickets, candidates and turns
  const signinForm = el('signin-form');
  const tokenInput = el('staff-token');
  const signinButton = el('staff-signin');
  const signoutButton = el('staff-signout');
  const identity = el('staff-identity');
  const errorBox = el('staff-error');
  const consoleBox = el('console');
  const ticketList = el('tickets');
  const ticketsEmpty = el('tickets-empty');
  const ticketsCount = el('tickets-count');
  const ticketsUpdated = el('tickets-updated');
  const detail = el('ticket-detail');
  const replyForm = el('reply-form');
  const replyText = el('reply-text');
  const replySend = el('reply-send');
  const replyStatus = el('reply-status');
  const learnEntry = el('learn-entry');
  const learnNewId = el('learn-new-id');
  const learnNewQuestion = el('learn-new-question');

  let token = null;
  // trial mode: signed in by the trial cookie (the URL the app printed), not by a key in this page
  let byTrialCookie = false;
  let refreshTimer = null;
  let generation = 0; // bumped on sign-in and sign-out: answers to an earlier sign-in's requests are dropped
  let selectedId = null;
  let selected = null; // the selected ticket as last loaded
  const drafts = new Map(); // ticket ID -> reply typed so far (in memory only)
  const replied = new Set(); // tickets this console answered (202) that the list may still show for a moment

  function showError(message) {
    errorBox.textContent = message || '';
    errorBox.hidden = !message;
  }

  // the server's problem text (problem.js)
  const describeFailure = (response) => window.problemText(response);

  class SignedOut extends Error {}

  /**
   * A call with the signed-in identity. Never with the chat page's web-session cookie (credentials: 'omit'): the
   * console acts only as the staff member; signed in by the trial cookie, with cookies (the server prefers a valid
   * trial cookie to the visitor's). A 401 (the key was revoked or the token expired) signs out.
   */
  async function api(path, options = {}) {
    if (!token && !byTrialCookie) {
      throw new SignedOut('not signed in');
    }
    const asked = generation;
    const response = await fetch(path, {
      ...options,
      credentials: token ? 'omit' : 'same-origin',
      cache: 'no-store',
      headers: {
        Accept: 'application/json',
        ...(options.headers || {}),
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
    });
    if (asked !== generation) {
      throw new SignedOut('signed out meanwhile');
    }
    if (response.status === 401) {
      signOut('Your sign-in is no longer accepted (401): the key was changed or the token expired. Sign in again.');
      throw new SignedOut('401');
    }
    return response;
  }

  // ---- sign-in ----

  async function signIn(candidate, remembered) {
    showError('');
    signinButton.disabled = true;
    const asked = ++generation;
    const checked = await window.staffSignIn(candidate); // staff-signin.js
    signinButton.disabled = false;
    if (asked !== generation) {
      return;
    }
    if (!checked.me) {
      if (checked.forget) {
        forgetToken();
      }
      if (checked.retry && remembered) {
        tokenInput.value = candidate; // "Sign in" tries the same again
      }
      showError(checked.message);
      if (checked.focus) {
        tokenInput.focus();
      }
      return;
    }
    token = candidate;
    sessionStorage.setItem(TOKEN_KEY, token);
    await showSignedIn(checked.me);
  }

  /** Trial mode: signs in by the trial cookie when the app set one (staff-signin.js), else leaves the form. */
  async function signInByTrialCookie() {
    const asked = ++generation;
    const me = await window.staffTrialSignIn();
    if (asked !== generation) {
      return;
    }
    if (!me) {
      tokenInput.focus();
      return;
    }
    byTrialCookie = true;
    await showSignedIn(me);
  }

  async function showSignedIn(me) {
    tokenInput.value = '';
    el('staff-name').textContent = me.name;
    el('staff-kind').textContent = `(${me.kind})`;
    signinForm.hidden = true;
    identity.hidden = false;
    consoleBox.hidden = false;
    await refreshTickets();
  }

  function forgetToken() {
    token = null;
    byTrialCookie = false;
    sessionStorage.removeItem(TOKEN_KEY);
  }

  /** Signs out: forgets the token and removes every customer's data from the page. */
  function signOut(message) {
    generation++;
    forgetToken();
    clearTimeout(refreshTimer);
    refreshTimer = null;
    selectedId = null;
    selected = null;
    drafts.clear();
    replied.clear();
    ticketList.replaceChildren();
    ticketsCount.textContent = '';
    ticketsUpdated.textContent = '';
    clearDetail();
    detail.hidden = true;
    consoleBox.hidden = true;
    identity.hidden = true;
    signinForm.hidden = false;
    tokenInput.value = '';
    showError(message || '');
    tokenInput.focus();
  }

  // ---- the open tickets ----

  function renderTickets(tickets) {
    // keep the keyboard focus on the same ticket across the refresh
    const focused = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.ticketId : undefined;
    const items = tickets.map((ticket) => build.ticketItem(ticket, {
      current: ticket.ticketId === selectedId,
      replied: replied.has(ticket.ticketId),
      onSelect: () => select(ticket.ticketId),
    }));
    ticketList.replaceChildren(...items);
    ticketsEmpty.hidden = tickets.length > 0;
    ticketsCount.textContent = `(${tickets.length}${tickets.length >= 100 ? '+' : ''})`;
    if (focused) {
      const again = ticketList.querySelector(`[data-ticket-id="${CSS.escape(focused)}"]`);
      if (again) {
        again.focus();
      }
    }
  }

  async function refreshTickets() {
    clearTimeout(refreshTimer);
    const asked = generation;
    try {
      const response = await api(LIST_URL);
      if (response.ok) {
        const tickets = await response.json();
        if (asked !== generation) {
          return;
        }
        const open = tickets.filter((t) => t.status === 'OPEN' || t.status == null);
        renderTickets(open);
        ticketsUpdated.textContent = `Updated ${new Date().toLocaleTimeString()}`;
        if (selectedId && !open.some((t) => t.ticketId === selectedId) && selected && selected.status === 'OPEN'
            && !replied.has(selectedId)) {
          // answered elsewhere meanwhile: show what happened
          loadDetail(selectedId);
        }
      } else if (response.status === 403) {
        signOut('This identity may not read tickets (403): the console needs a staff or admin identity.');
        return;
      } else {
        ticketsUpdated.textContent = `Could not refresh the list: ${await describeFailure(response)}`;
      }
    } catch (e) {
      if (e instanceof SignedOut) {
        return;
      }
      ticketsUpdated.textContent = `Could not refresh the list: ${e.message}`;
    }
    if (asked === generation && (token || byTrialCookie)) {
      refreshTimer = setTimeout(refreshTickets, REFRESH_MS);
    }
  }

  // ---- one ticket ----

  function clearDetail() {
    el('ticket-id').textContent = '';
    el('ticket-question').textContent = '';
    el('ticket-meta').replaceChildren();
    el('candidates').replaceChildren();
    el('turns').replaceChildren();
    replyText.value = '';
    setReplyStatus('', '');
  }

  function setReplyStatus(text, state) {
    replyStatus.textContent = text;
    replyStatus.dataset.state = state;
    replyStatus.className = state === 'error' || state === 'conflict' ? 'error' : state === 'sent' ? 'ok' : 'hint';
  }

  function select(ticketId) {
    if (selectedId && selectedId !== ticketId) {
      drafts.set(selectedId, replyText.value);
    }
    selectedId = ticketId;
    ticketList.querySelectorAll('[data-ticket-id]').forEach((b) => {
      if (b.dataset.ticketId === ticketId) {
        b.setAttribute('aria-current', 'true');
      } else {
        b.removeAttribute('aria-current');
      }
    });
    loadDetail(ticketId);
  }

  async function loadDetail(ticketId) {
    const asked = generation;
    let response;
    try {
      response = await api(`/api/v1/tickets/${encodeURIComponent(ticketId)}`);
    } catch (e) {
      if (!(e instanceof SignedOut)) {
        setReplyStatus(`Could not load the ticket: ${e.message}`, 'error');
      }
      return;
    }
    if (asked !== generation || ticketId !== selectedId) {
      return; // another ticket was selected meanwhile
    }
    if (!response.ok) {
      detail.hidden = false;
      clearDetail();
      el('ticket-id').textContent = ticketId;
      setReplyStatus(response.status === 404 ? 'This ticket does not exist (any more).'
        : `Could not load the ticket: ${await describeFailure(response)}`, 'error');
      replySend.disabled = true;
      return;
    }
    const view = await response.json();
    if (asked !== generation || ticketId !== selectedId) {
      return;
    }
    showDetail(view);
  }

  function showDetail(view) {
    const ticket = view; // the ticket's fields, with candidates and recentTurns beside them
    const sameTicket = selected && selected.ticketId === ticket.ticketId;
    selected = ticket;
    detail.hidden = false;
    el('ticket-id').textContent = ticket.ticketId;
    el('ticket-question').textContent = ticket.question || '';

    el('ticket-meta').replaceWith(build.ticketMeta(ticket));

    const candidates = Array.isArray(view.candidates) ? view.candidates : [];
    el('candidates').replaceChildren(...candidates.map((c) => build.candidateItem(c, useAnswer)));
    el('candidates-empty').hidden = candidates.length > 0;
    // the candidates are the likeliest entries the question is a phrasing of
    el('learn-candidates').replaceChildren(...candidates.map((c) => {
      const option = document.createElement('option');
      option.value = c.faqId;
      option.label = c.question || c.faqId;
      return option;
    }));

    const turns = Array.isArray(view.recentTurns) ? view.recentTurns : [];
    el('turns').replaceChildren(...turns.map(build.turnItem));
    el('turns-empty').hidden = turns.length > 0;

    const open = ticket.status === 'OPEN' && !replied.has(ticket.ticketId);
    replySend.disabled = !open;
    replyText.disabled = !open;
    if (!sameTicket) {
      replyText.value = drafts.get(ticket.ticketId) || '';
      setReplyStatus('', '');
      resetLearn(candidates);
    }
    if (ticket.status === 'ANSWERED' && !replied.has(ticket.ticketId) && replyStatus.dataset.state !== 'conflict') {
      setReplyStatus(`Already answered by ${ticket.agent || 'someone'}.`, 'conflict');
    }
  }

  function resetLearn(candidates) {
    document.querySelector('input[name="learn-mode"][value=""]').checked = true;
    learnEntry.value = candidates.length > 0 ? candidates[0].faqId : '';
    learnNewId.value = '';
    learnNewQuestion.value = '';
  }

  /** The reply's learn part (see docs/api.md), or undefined to only reply. */
  function learnRequest() {
    const mode = document.querySelector('input[name="learn-mode"]:checked').value;
    if (mode === 'phrasing') {
      return { asPhrasingOf: learnEntry.value.trim() };
    }
    if (mode === 'entry') {
      const question = learnNewQuestion.value.trim();
      return { newEntry: question ? { id: learnNewId.value.trim(), question } : { id: learnNewId.value.trim() } };
    }
    return undefined;
  }

  function useAnswer(answer) {
    const draft = replyText.value.trim();
    if (draft && draft !== answer.trim()
        && !window.confirm('Replace the reply you have typed with this answer?')) {
      return;
    }
    replyText.value = answer;
    replyText.focus();
  }

  async function sendReply() {
    const ticketId = selectedId;
    const text = replyText.value.trim();
    if (!ticketId) {
      return;
    }
    if (!text) {
      setReplyStatus('Type a reply first.', 'error');
      replyText.focus();
      return;
    }
    replySend.disabled = true;
    setReplyStatus('Sending…', 'sending');
    let response;
    try {
      response = await api(`/api/v1/tickets/${encodeURIComponent(ticketId)}/reply`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ text, learn: learnRequest() }),
      });
    } catch (e) {
      if (!(e instanceof SignedOut)) {
        replySend.disabled = false;
        setReplyStatus(`Could not send the reply: ${e.message}`, 'error');
      }
      return;
    }
    if (ticketId !== selectedId) {
      return;
    }
    if (response.status === 202) {
      replied.add(ticketId);
      drafts.delete(ticketId);
      replyText.disabled = true;
      const learned = (await response.json().catch(() => ({}))).learned;
      setReplyStatus('Reply sent (202 Accepted): it is the answer on the customer\'s page now.'
        + (learned ? ` The FAQ learned it (pack change ${learned.version}: ${learned.kind} '${learned.entryId}').` : ''),
      'sent');
      refreshTickets();
      return;
    }
    if (response.status === 409) {
      const why = (await describeFailure(response)).replace(/^Error 409: /, '');
      drafts.delete(ticketId);
      refreshTickets();
      await loadDetail(ticketId); // shows who answered it; then the 409's own words
      if (ticketId === selectedId) {
        replySend.disabled = true;
        setReplyStatus(`Already answered (409): ${why}`, 'conflict');
      }
      return;
    }
    replySend.disabled = false;
    if (response.status === 403) {
      setReplyStatus('This identity may not answer tickets (403).', 'error');
    } else if (response.status === 404) {
      setReplyStatus('This ticket does not exist (any more) (404).', 'error');
    } else if (response.status === 400) {
      setReplyStatus(`Nothing was sent: ${await describeFailure(response)}`, 'error');
    } else {
      setReplyStatus(`Could not send the reply: ${await describeFailure(response)}`, 'error');
    }
  }

  // ---- wiring ----

  signinForm.addEventListener('submit', (e) => {
    e.preventDefault();
    const candidate = tokenInput.value.trim();
    if (!candidate) {
      showError('Enter a staff API key or an access token.');
      tokenInput.focus();
      return;
    }
    signIn(candidate, false);
  });

  signoutButton.addEventListener('click', () => signOut(''));

  replyForm.addEventListener('submit', (e) => {
    e.preventDefault();
    sendReply();
  });

  replyText.addEventListener('keydown', (e) => {
    // Ctrl+Enter (Cmd+Enter) sends; Enter alone is a new line in a reply
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.isComposing) {
      e.preventDefault();
      replyForm.requestSubmit();
    }
  });

  const remembered = sessionStorage.getItem(TOKEN_KEY);
  if (remembered) {
    signIn(remembered, true);
  } else {
    signInByTrialCookie();
  }
})();
