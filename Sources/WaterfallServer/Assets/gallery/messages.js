// What the page tells people: spoken announcements, short notices, the empty-feed card and errors.

import { state } from './state.js';
import { ui } from './dom.js';
import { emit } from './events.js';
import { LINK } from './scope.js';

let announceTimer = 0;
/** Says `text` to screen readers (the aria-live status region). */
export function announce(text) {
  clearTimeout(announceTimer);
  ui.announcer.textContent = '';
  announceTimer = setTimeout(() => { ui.announcer.textContent = text; }, 40);
}
let noticeTimer = 0;
/** A short visible notice under the bar (also read out: it is a status region). */
export function showNotice(text, kind = 'info', ms = 4200) {
  clearTimeout(noticeTimer);
  ui.notice.hidden = true;
  ui.notice.textContent = text;
  ui.notice.dataset.kind = kind;
  void ui.notice.offsetWidth;
  ui.notice.hidden = false;
  noticeTimer = setTimeout(() => { ui.notice.hidden = true; }, ms);
}

export function emptyFeedMessage() {
  // Only fixed strings: the text is markup (names would need escaping).
  if (LINK) return { title: 'Nothing here yet', text: 'What this link shares has no images now; they will show here as they come.' };
  if (state.savedView) return { title: 'No image matches this view', text: 'None of the feed’s images matches the view’s rule now; the ones that come to match will show here.' };
  return { title: 'This feed has no images', text: 'Import some with <code>waterfall import FILE --feed NAME</code> or <code>PUT /v1/feeds/NAME</code>; they will show here.' };
}
export function showEmpty(message) {
  if (!message) { ui.empty.hidden = true; return; }
  ui.empty.textContent = '';
  const card = document.createElement('div');
  card.className = 'empty-card';
  const h = document.createElement('h2');
  h.textContent = message.title;
  const p = document.createElement('p');
  // Only our own fixed strings carry markup.
  p.innerHTML = message.text;
  card.append(h, p);
  ui.empty.appendChild(card);
  ui.empty.hidden = false;
  (state.view === 'coverflow' ? ui.coverflow : ui.stage).appendChild(ui.empty);
}

export function failed(error) {
  if (error.status === 401 && /expired/.test(error.message)) {
    showNotice(`Your API key expired: ${error.message}`, 'error', 8000);
    emit('key-needed', `This key has expired (${error.message.replace(/^the API key /, '')}). Ask for a new one and paste it here.`);
    return;
  }
  if (error.status === 401) {
    showNotice('This server asks for an API key: enter one under the key button.', 'error', 6000);
    emit('key-needed', 'This server asks for an API key (the database has keys). Paste one; it is kept in this browser only.');
    return;
  }
  if (error.status === 404 && state.feed) {
    showNotice(error.message, 'error');
    return;
  }
  showNotice(error.message || 'Something went wrong.', 'error');
}
