// The staff console's elements, built from the server's data (text only, never HTML): the ticket list's
// items, the FAQ candidates and the session's recent turns. Plain JS, loaded before staff.js.
'use strict';

window.staffView = (function () {
  /** Creates an element with the given class and text (text only, never HTML). */
  function make(tag, className, text) {
    const node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text != null) {
      node.textContent = String(text);
    }
    return node;
  }

  function waitingSeconds(ticket) {
    let seconds = Number(ticket.waitingSeconds);
    if (ticket.waitingSeconds == null || !Number.isFinite(seconds)) {
      seconds = (Date.now() - Date.parse(ticket.createdAt)) / 1000;
    }
    return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
  }

  /** "waiting 42 s", "waiting 3 min", "waiting 2 h 5 min", "waiting 3 days". */
  function waitingText(seconds) {
    if (seconds < 60) {
      return `waiting ${Math.floor(seconds)} s`;
    }
    const minutes = Math.floor(seconds / 60);
    if (minutes < 60) {
      return `waiting ${minutes} min`;
    }
    const hours = Math.floor(minutes / 60);
    if (hours < 48) {
      return `waiting ${hours} h ${minutes % 60} min`;
    }
    return `waiting ${Math.floor(hours / 24)} days`;
  }

  function who(ticket) {
    const caller = ticket.caller || 'unknown caller';
    return ticket.userId ? `${caller} / ${ticket.userId}` : caller;
  }

  function addMeta(dl, term, value) {
    if (value == null || value === '') {
      return;
    }
    dl.append(make('dt', null, term), make('dd', null, value));
  }

  function when(instant) {
    const t = Date.parse(instant);
    return Number.isFinite(t) ? new Date(t).toLocaleString() : instant;
  }

  /** One ticket of the open list: how long it has waited, its question, intent and who asked. */
  function ticketItem(ticket, { current, replied, onSelect }) {
    const li = make('li');
    const button = make('button', 'ticket');
    button.type = 'button';
    button.dataset.ticketId = ticket.ticketId;
    button.dataset.testid = 'ticket';
    const seconds = waitingSeconds(ticket);
    if (seconds >= 15 * 60) {
      button.classList.add('overdue');
    }
    if (current) {
      button.setAttribute('aria-current', 'true');
    }
    if (replied) {
      // answered from this console: the server closes the ticket a moment later
      button.classList.add('replied');
    }
    const top = make('span', 'ticket-top');
    top.append(make('span', 'wait', waitingText(seconds)));
    if (ticket.priority != null) {
      top.append(make('span', 'priority', `priority ${ticket.priority}`));
    }
    button.append(
      top,
      make('span', 'ticket-question', ticket.question || '(no text)'),
      make('span', 'ticket-who hint', `${ticket.intent || 'no intent'} · ${who(ticket)}`));
    button.addEventListener('click', onSelect);
    li.append(button);
    return li;
  }

  /** The ticket's facts for the detail pane (the list of what a person needs to answer it). */
  function ticketMeta(ticket) {
    const meta = make('dl', 'ticket-meta');
    meta.id = 'ticket-meta';
    if (ticket.status === 'OPEN') {
      addMeta(meta, 'Waiting', waitingText(waitingSeconds(ticket)).replace(/^waiting /, ''));
    }
    addMeta(meta, 'Status', ticket.status === 'ANSWERED'
      ? `answered by ${ticket.agent || 'someone'}${ticket.answeredAt ? ` at ${when(ticket.answeredAt)}` : ''}`
      : ticket.status);
    addMeta(meta, 'Created', when(ticket.createdAt));
    addMeta(meta, 'Intent', ticket.intent);
    addMeta(meta, 'Priority', ticket.priority);
    addMeta(meta, 'Why handed over', ticket.reason);
    addMeta(meta, 'Caller', ticket.caller);
    addMeta(meta, 'User', ticket.userId);
    addMeta(meta, 'Session', ticket.sessionId);
    addMeta(meta, 'Workflow', ticket.workflowId);
    addMeta(meta, 'Reply', ticket.reply);
    return meta;
  }

  /** One FAQ entry the matcher found, with a button that puts its answer into the reply. */
  function candidateItem(c, useAnswer) {
    const li = make('li', 'candidate');
    li.dataset.faqId = c.faqId;
    li.append(make('p', 'candidate-id', c.faqId));
    li.append(make('p', 'candidate-question', c.question == null ? '(not in the FAQ any more)' : c.question));
    if (c.answer != null) {
      li.append(make('p', 'answer', c.answer));
      const use = make('button', 'secondary', 'Use this answer');
      use.type = 'button';
      use.dataset.faqId = c.faqId;
      use.addEventListener('click', () => useAnswer(c.answer));
      li.append(use);
    }
    return li;
  }

  /** One earlier turn of the session: question, answer and its level. */
  function turnItem(t) {
    const li = make('li', 'recent-turn');
    li.append(make('p', 'question', t.question || ''));
    li.append(make('p', 'answer', t.answer || ''));
    if (t.level) {
      const meta = make('p', 'meta', 'Answer level ');
      meta.append(make('span', 'level', t.level));
      li.append(meta);
    }
    return li;
  }

  return { make, waitingSeconds, waitingText, who, ticketItem, ticketMeta, candidateItem, turnItem };
})();
