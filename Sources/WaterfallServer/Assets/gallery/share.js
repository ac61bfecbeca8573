// The share action: a read-only, expiring link (`POST /v1/shares`) to the feed or saved view shown, its address shown once.

import { state } from './state.js';
import { ui } from './dom.js';
import { apiPost } from './api.js';
import { failed, showNotice } from './messages.js';
import { LINK } from './scope.js';

/** The share button: on the gallery's own page, for a key that may write (making a link is a write). */
export function renderShareButton() {
  ui.shareButton.hidden = !!LINK || !state.canWrite;
  if (ui.shareButton.hidden) closeSharePanel();
}

function openSharePanel() {
  const what = state.savedView ? `the view “${state.savedView}” of ${state.feed}` : `the feed ${state.feed}`;
  ui.shareTitle.textContent = `Share ${what}`;
  const saved = state.layout !== 'fit';
  ui.shareLayoutRow.hidden = !saved;
  ui.shareLayout.checked = false;
  if (saved) ui.shareLayoutText.textContent = `Only the layout “${state.layout}”`;
  ui.shareResult.hidden = true;
  ui.shareUrl.value = '';
  ui.shareMake.disabled = false;
  ui.sharePanel.hidden = false;
  ui.shareButton.setAttribute('aria-expanded', 'true');
  ui.shareMake.focus();
}

function closeSharePanel() {
  ui.sharePanel.hidden = true;
  ui.shareButton.setAttribute('aria-expanded', 'false');
}

async function makeLink() {
  if (!state.feed) return;
  const body = { feed: state.feed };
  if (state.savedView) body.view = state.savedView;
  if (state.layout !== 'fit' && ui.shareLayout.checked) body.layout = state.layout;
  if (ui.shareExpires.value) body.expires = ui.shareExpires.value;
  ui.shareMake.disabled = true;
  try {
    const made = await apiPost('/v1/shares', body);
    ui.shareUrl.value = `${location.origin}${made.path}/gallery`;
    ui.shareResult.hidden = false;
    ui.shareUrl.focus();
    ui.shareUrl.select();
  } catch (error) {
    ui.shareMake.disabled = false;
    failed(error);
  }
}

export function wireShare() {
  ui.shareButton.addEventListener('click', () => { if (ui.sharePanel.hidden) openSharePanel(); else closeSharePanel(); });
  ui.shareForm.addEventListener('submit', (event) => { event.preventDefault(); makeLink(); });
  ui.shareCopy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(ui.shareUrl.value);
      showNotice('The link is copied.', 'info', 2500);
    } catch {
      ui.shareUrl.select();
    }
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !ui.sharePanel.hidden) { closeSharePanel(); ui.shareButton.focus(); }
  });
  document.addEventListener('pointerdown', (event) => {
    if (!ui.sharePanel.hidden && !ui.sharePanel.contains(event.target) && !ui.shareButton.contains(event.target)) closeSharePanel();
  });
}
