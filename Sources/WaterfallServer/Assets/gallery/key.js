// The API key: the key form (kept in localStorage) and what the key may do (`GET /v1/access`).

import { state } from './state.js';
import { ui } from './dom.js';
import { apiGet, apiKey, KEY_STORAGE } from './api.js';
import { showNotice } from './messages.js';
import { LINK } from './scope.js';
import { on } from './events.js';

export function openKeyPanel(text) {
  if (text) ui.keyText.textContent = text;
  ui.keyPanel.hidden = false;
  ui.keyButton.setAttribute('aria-expanded', 'true');
  ui.keyInput.value = apiKey();
  ui.keyInput.focus();
}
function closeKeyPanel() {
  ui.keyPanel.hidden = true;
  ui.keyButton.setAttribute('aria-expanded', 'false');
}
/** The key button: none on a share link's page, which needs no key (scope.js). */
export function renderKeyButton() {
  ui.keyButton.dataset.set = apiKey() ? 'true' : 'false';
  ui.keyButton.hidden = !!LINK;
}

/** Asks the server what the key (or no key) may do: a read-only key turns moves off, and the
 *  page says so; an expired key's 401 goes to the caller. A server without the route (older)
 *  is taken to allow moves, which it still refuses with 403 if it must. */
export async function loadAccess() {
  try {
    const { body } = await apiGet('/v1/access');
    state.canWrite = body.write === true;
  } catch (error) {
    if (error.status === 401) throw error;
    state.canWrite = true;
  }
  document.documentElement.dataset.readOnly = state.canWrite ? 'false' : 'true';
  if (!state.canWrite) showNotice('This API key may read but not write: moving images is off.', 'info', 6000);
}

/** The key button and form; `onChange` runs after the key is saved or forgotten. */
export function wireKeyPanel(onChange) {
  // A refusal for want of a key (messages.js) opens the form, saying why.
  on('key-needed', openKeyPanel);
  ui.keyButton.addEventListener('click', () => { if (ui.keyPanel.hidden) openKeyPanel(); else closeKeyPanel(); });
  ui.keyForm.addEventListener('submit', (event) => {
    event.preventDefault();
    try { localStorage.setItem(KEY_STORAGE, ui.keyInput.value.trim()); } catch { /* private mode */ }
    renderKeyButton();
    closeKeyPanel();
    onChange();
  });
  ui.keyClear.addEventListener('click', () => {
    try { localStorage.removeItem(KEY_STORAGE); } catch { /* private mode */ }
    ui.keyInput.value = '';
    renderKeyButton();
    closeKeyPanel();
    onChange();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !ui.keyPanel.hidden) { closeKeyPanel(); ui.keyButton.focus(); }
  });
  document.addEventListener('pointerdown', (event) => {
    if (!ui.keyPanel.hidden && !ui.keyPanel.contains(event.target) && !ui.keyButton.contains(event.target)) closeKeyPanel();
  });
}
