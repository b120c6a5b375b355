// Shared by the chat page and the staff console: the text of a failed response, from its problem-details body
// (application/problem+json) or whatever the server sent. Plain JS, loaded before the page's own script.
'use strict';

window.problemText = async function problemText(response) {
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
  return `Error ${response.status}${detail ? `: ${detail}` : ''}`;
};
