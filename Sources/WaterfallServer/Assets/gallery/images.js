// Images and placeholders: each box's picture from its url, hosts that fail given up, the id-and-ratio card in the image's colour.

import { hashHue } from './format.js';

// Images come from each item's url. An origin that fails twice before anything loads from it
// is given up for this visit (placeholders only): one unreachable host costs two failed loads,
// not one per image.
const origins = new Map();
const failedUrls = new Set();
export const waitingMedia = new Set();

// The screen's device pixels a point, in halves from 1 to 8, sent as `dpr` with every layout
// query: the server answers each frame's url as the smallest rendition that covers the frame
// at this density (DESIGN section 16). Rounded so that near-equal screens share kept answers.
export const DPR = Math.min(8, Math.max(1, Math.ceil((window.devicePixelRatio || 1) * 2) / 2));
function originOf(url) {
  try { const u = new URL(url, location.href); return u.origin === location.origin || u.protocol === 'data:' ? null : u.origin; } catch { return undefined; }
}
function originState(origin) {
  let o = origins.get(origin);
  if (!o) { o = { ok: false, fails: 0, loading: 0 }; origins.set(origin, o); }
  return o;
}
/** Puts the image of `url` into `holder` (a tile or a cover) when its origin allows, else waits. */
export function wantImage(holder, url) {
  if (!url || holder.img || holder.broken) return;
  const origin = originOf(url);
  if (origin === undefined || failedUrls.has(url)) { markBroken(holder); return; }
  const o = origin ? originState(origin) : null;
  if (o && !o.ok) {
    if (o.fails >= 2) { markBroken(holder); return; }
    if (o.loading + o.fails >= 2) { holder.waiting = url; waitingMedia.add(holder); return; }
  }
  holder.waiting = null;
  waitingMedia.delete(holder);
  const img = new Image();
  img.alt = '';
  img.decoding = 'async';
  img.draggable = false;
  img.referrerPolicy = 'no-referrer';
  let done = false;
  if (o) o.loading++;
  const finish = (ok) => {
    if (done) return;
    done = true;
    if (o) { o.loading--; if (ok) o.ok = true; else if (!o.ok) o.fails++; }
    if (ok) holder.el.classList.add('loaded');
    else { failedUrls.add(url); img.remove(); holder.img = null; markBroken(holder); }
    pumpWaitingImages();
  };
  img.addEventListener('load', () => finish(true));
  img.addEventListener('error', () => finish(false));
  holder.img = img;
  holder.media.appendChild(img);
  img.src = url;
}
function markBroken(holder) { holder.broken = true; holder.el.classList.add('broken'); }
function pumpWaitingImages() {
  for (const holder of [...waitingMedia]) {
    waitingMedia.delete(holder);
    if (holder.el.isConnected && holder.waiting) { const url = holder.waiting; holder.waiting = null; wantImage(holder, url); }
  }
}
/** Paints the image's `color` (`#rrggbb` from the feed) behind its placeholder card, shown
 * until the picture loads; without one, the card keeps the colour made from its id. */
export function paintColour(ph, color) {
  const colour = typeof color === 'string' && /^#[0-9a-f]{6}$/.test(color) ? color : '';
  if (ph.dataset.color === colour) return;
  ph.dataset.color = colour;
  ph.style.background = colour;
  ph.classList.toggle('ph-colour', colour !== '');
}

/** The placeholder: the image's id and aspect ratio on a colour of its own. */
export function makePlaceholder(id) {
  const ph = document.createElement('div');
  ph.className = 'ph';
  ph.setAttribute('aria-hidden', 'true');
  ph.style.setProperty('--h', String(hashHue(id)));
  const icon = document.createElement('span');
  icon.className = 'ph-icon';
  const label = document.createElement('span');
  label.className = 'ph-id';
  label.textContent = id;
  const ratio = document.createElement('span');
  ratio.className = 'ph-ratio';
  ph.append(icon, label, ratio);
  return { ph, ratio };
}
