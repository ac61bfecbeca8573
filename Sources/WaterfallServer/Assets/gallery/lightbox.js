// The lightbox: one image large in a modal dialog, its neighbours by arrow keys, Escape to close.

import { lightbox, state, wf } from './state.js';
import { ui } from './dom.js';
import { clamp, fmtInt, pixelRatioLabel } from './format.js';
import { apiGet } from './api.js';
import { failed } from './messages.js';
import { sectionName } from './sections.js';
import { makePlaceholder, paintColour, wantImage } from './images.js';
import { details } from './details.js';
import { requestRender } from './waterfall.js';
import { emit } from './events.js';
import { feedPath } from './scope.js';

// An image large, in a modal dialog: opened by a click (not one that ended a drag) or Enter on
// an image; the arrow keys show its neighbours in catalog order (at any depth: one image of
// the images list each); Escape closes and gives the focus back to the image it came from.

export function openLightbox(item, opener, total) {
  if (!state.feed || !item) return;
  emit('lightbox-opening');
  lightbox.open = true;
  lightbox.opener = opener || null;
  lightbox.openerId = item.id;
  lightbox.total = total;
  ui.main.inert = true;
  ui.bar.inert = true;
  ui.lightbox.hidden = false;
  document.documentElement.classList.add('lightbox-open');
  ui.lightbox.focus({ preventScroll: true });
  showLightbox(item.index);
}

function closeLightbox() {
  if (!lightbox.open) return;
  lightbox.open = false;
  lightbox.token++;
  ui.lightbox.hidden = true;
  ui.lightboxFrame.textContent = '';
  ui.main.inert = false;
  ui.bar.inert = false;
  document.documentElement.classList.remove('lightbox-open');
  const opener = lightbox.opener && lightbox.opener.isConnected ? lightbox.opener : null;
  const tile = opener || (wf.tiles.get(lightbox.openerId) || {}).el;
  if (tile) tile.focus({ preventScroll: true });
  else if (state.view === 'coverflow') ui.cfScroller.focus({ preventScroll: true });
  else { wf.pendingFocus = lightbox.openerId; requestRender(); }
}

/** Shows the image at catalog `index` (clamped to the feed). */
async function showLightbox(index) {
  const total = lightbox.total;
  if (!(total > 0)) return;
  index = clamp(index, 0, total - 1);
  lightbox.index = index;
  const token = ++lightbox.token;
  ui.lightbox.dataset.index = String(index);
  ui.lightboxPrev.setAttribute('aria-disabled', index <= 0 ? 'true' : 'false');
  ui.lightboxNext.setAttribute('aria-disabled', index >= total - 1 ? 'true' : 'false');
  ui.lightboxSub.textContent = `${fmtInt.format(index + 1)} of ${fmtInt.format(total)}`;
  let body;
  try {
    ({ body } = await apiGet(`${feedPath()}/images?offset=${index}&limit=1`));
  } catch (error) {
    if (token === lightbox.token) failed(error);
    return;
  }
  if (token !== lightbox.token || !lightbox.open) return;
  const image = body.images[0];
  if (!image) return;
  lightbox.total = body.totalItems;
  details.set(image.id, { width: image.width, height: image.height, title: image.title });
  renderLightboxImage(image, body.totalItems);
}

function renderLightboxImage(image, total) {
  ui.lightbox.dataset.id = image.id;
  ui.lightboxFrame.textContent = '';
  const el = document.createElement('div');
  el.className = 'lb-photo';
  const media = document.createElement('div');
  media.className = 'media';
  media.style.bottom = '0';
  const { ph, ratio } = makePlaceholder(image.id);
  ratio.textContent = pixelRatioLabel(image.width, image.height);
  paintColour(ph, image.color);
  media.appendChild(ph);
  el.appendChild(media);
  ui.lightboxFrame.appendChild(el);
  lightbox.size = { width: image.width, height: image.height };
  sizeLightbox();
  const holder = { el, media, ratio, id: image.id, img: null, broken: false, waiting: null, detailed: true };
  if (image.url) wantImage(holder, image.url);
  ui.lightboxTitle.textContent = image.title || `Image ${image.id}`;
  ui.lightboxSub.textContent = `${image.title ? image.id + ' · ' : ''}${fmtInt.format(image.index + 1)} of ${fmtInt.format(total)} · ${image.width} × ${image.height} · ${sectionName(image.section)}`;
}

/** The image as large as the window allows, in its own aspect ratio. */
function sizeLightbox() {
  const el = ui.lightboxFrame.firstElementChild;
  if (!lightbox.open || !el || !lightbox.size) return;
  const { width, height } = lightbox.size;
  const narrow = window.innerWidth < 600;
  const maxWidth = Math.max(80, window.innerWidth - (narrow ? 24 : 150));
  const maxHeight = Math.max(80, window.innerHeight - (narrow ? 170 : 130));
  const scale = Math.min(maxWidth / width, maxHeight / height);
  el.style.width = Math.round(width * scale) + 'px';
  el.style.height = Math.round(height * scale) + 'px';
}

function onLightboxKeyDown(event) {
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const steps = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1, PageUp: -10, PageDown: 10 };
  if (event.key === 'Escape') { event.preventDefault(); event.stopPropagation(); closeLightbox(); return; }
  if (event.key in steps) { event.preventDefault(); showLightbox(lightbox.index + steps[event.key]); return; }
  if (event.key === 'Home' || event.key === 'End') { event.preventDefault(); showLightbox(event.key === 'Home' ? 0 : lightbox.total - 1); return; }
  if (event.key === 'Tab') {
    // The focus stays in the dialog: its three buttons, round.
    const buttons = [ui.lightboxPrev, ui.lightboxNext, ui.lightboxClose];
    const at = buttons.indexOf(document.activeElement);
    const next = at < 0 ? (event.shiftKey ? buttons.length - 1 : 0) : (at + (event.shiftKey ? buttons.length - 1 : 1)) % buttons.length;
    event.preventDefault();
    buttons[next].focus();
  }
}

/** A click on an image opens it; the dialog's keys and buttons; its size follows the window. */
export function wireLightbox() {
  // A click on an image opens it large; the click that ends a drag does not.
  ui.list.addEventListener('click', (event) => {
    if (wf.dragged !== null || performance.now() - wf.lastDragEnd < 400 || !wf.answer) return;
    const el = event.target.closest && event.target.closest('.tile');
    const item = el && wf.answer.byId.get(el.dataset.id);
    if (item) openLightbox(item, el, wf.answer.totalItems);
  });
  ui.lightbox.addEventListener('keydown', onLightboxKeyDown);
  ui.lightboxBackdrop.addEventListener('click', () => closeLightbox());
  ui.lightboxClose.addEventListener('click', () => closeLightbox());
  ui.lightboxPrev.addEventListener('click', () => showLightbox(lightbox.index - 1));
  ui.lightboxNext.addEventListener('click', () => showLightbox(lightbox.index + 1));
  window.addEventListener('resize', () => sizeLightbox());
}
