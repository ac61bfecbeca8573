// The cover-flow view: covers scaled about the centre, snapped to the API's snap offset when scrolling stops.

import { cf, KEEP_MARGIN, state, wf } from './state.js';
import { reducedMotion, ui } from './dom.js';
import { clamp, fmtInt, num, pixelRatioLabel, ratioLabel } from './format.js';
import { apiGet, isAbort } from './api.js';
import { emptyFeedMessage, failed, showEmpty } from './messages.js';
import { sectionName } from './sections.js';
import { DPR, makePlaceholder, paintColour, waitingMedia, wantImage } from './images.js';
import { applyDetails, details, scheduleDetails } from './details.js';
import { MAX_SPACER } from './scroll.js';
import { DEBOUNCE_MS, MAX_WAIT_MS } from './waterfall.js';
import { openLightbox } from './lightbox.js';
import { noteRevision } from './meta.js';
import { on } from './events.js';
import { feedPath } from './scope.js';

export const COVER_FACTOR = 0.0012;  // how fast covers shrink away from the centre (the API's factor)

function coverGeometry() {
  cf.V = ui.cfScroller.clientWidth || wf.W;
  cf.Hs = ui.cfScroller.clientHeight || wf.H;
  cf.itemHeight = clamp(Math.round(cf.Hs * 0.4), 60, 460);
  cf.insetTop = Math.max(0, Math.round((cf.Hs - cf.itemHeight) * 0.34));
  cf.pad = Math.round(cf.V / 2);
  ui.cfStage.style.width = cf.V + 'px';
}
function coverKey() { return `${feedPath()}\u0000${cf.V}\u0000${cf.Hs}`; }
export function coverMappedX() {
  const C = cf.contentWidth, S = cf.spacerWidth, V = cf.V;
  const left = ui.cfScroller.scrollLeft;
  if (cf.override && Math.abs(left - cf.override.left) < 1) return cf.override.x;
  if (!(C > V)) return 0;
  if (S >= C) return Math.min(left, C - V);
  return Math.min(C - V, (left / (S - V)) * (C - V));
}
function coverScrollFor(x) {
  const C = cf.contentWidth, S = cf.spacerWidth, V = cf.V;
  if (!(C > V)) return 0;
  const clamped = clamp(x, 0, C - V);
  if (S >= C) return clamped;
  return (clamped / (C - V)) * (S - V);
}
function setCoverWidth(width) {
  cf.contentWidth = width;
  cf.spacerWidth = Math.min(width, MAX_SPACER);
  ui.cfSpacer.style.width = Math.max(0, cf.spacerWidth - cf.V) + 'px';
}

export function startCover() {
  coverGeometry();
  if (cf.controller) cf.controller.abort();
  cf.controller = null;
  cf.answer = null;
  cf.override = null;
  for (const cover of cf.items.values()) cover.el.remove();
  cf.items.clear();
  cf.key = coverKey();
  ui.cfList.setAttribute('aria-label', `Images of ${state.feed}, cover flow`);
  setCoverWidth(0);
  ui.cfScroller.scrollLeft = 0;
  cf.snapPending = true;
  fetchCover({ force: true });
}

function scheduleCoverFetch() {
  const now = performance.now();
  if (!cf.firstScheduled) cf.firstScheduled = now;
  clearTimeout(cf.timer);
  const wait = Math.max(0, Math.min(DEBOUNCE_MS, cf.firstScheduled + MAX_WAIT_MS - now));
  cf.timer = setTimeout(() => { cf.timer = 0; cf.firstScheduled = 0; fetchCover(); }, wait);
}

/** The coverflow query for the visible width plus half a screen each side (same centre, so
 *  the same scales and the same snap as the visible width alone). */
export async function fetchCover({ force = false } = {}) {
  if (!state.feed || state.view !== 'coverflow') return null;
  const x = coverMappedX();
  const a = cf.answer;
  if (!force && a && a.key === cf.key && Math.abs(a.x - x) < 0.01) return a;
  if (cf.controller) cf.controller.abort();
  const controller = new AbortController();
  cf.controller = controller;
  const key = cf.key;
  const over = Math.round(cf.V / 2);
  const inset = `${cf.insetTop},${cf.pad},${cf.insetTop},${cf.pad}`;
  const path = `${feedPath()}/coverflow?itemHeight=${cf.itemHeight}&viewportWidth=${cf.V + 2 * over}&x=${num(x - over)}&sectionInset=${inset}&factor=${COVER_FACTOR}&dpr=${DPR}`;
  try {
    const { body, etag } = await apiGet(path, controller.signal);
    if (controller.signal.aborted || key !== cf.key) return null;
    cf.controller = null;
    if (body.revision < state.revision) return null;  // an older order than one already seen
    const previous = cf.answer;
    cf.answer = { key, x, over, snap: body.snapOffset + over, items: body.items, totalItems: body.totalItems, revision: body.revision, byId: new Map(body.items.map((i) => [i.id, i])) };
    noteRevision(body.revision);
    state.etag = etag || state.etag;
    if (body.contentWidth !== cf.contentWidth) setCoverWidth(body.contentWidth);
    showEmpty(body.totalItems === 0 ? emptyFeedMessage() : null);
    renderCover(previous && previous.revision !== body.revision ? previous : null);
    scheduleDetails();
    // A snap waits for an answer about where the scrolling stopped.
    if (cf.snapPending && !coverPointerDown && Math.abs(coverMappedX() - x) < 0.01) {
      cf.snapPending = false;
      scrollCoverTo(cf.answer.snap);
    }
    return cf.answer;
  } catch (error) {
    if (isAbort(error) || controller.signal.aborted) return null;
    if (cf.controller === controller) cf.controller = null;
    failed(error);
    return null;
  }
}

function coverScale(item, x) {
  if (cf.answer && Math.abs(cf.answer.x - x) < 0.01) return item.scale;
  const centre = item.x + item.width / 2;
  return 1 / (1 + Math.abs(centre - (x + cf.V / 2)) * COVER_FACTOR);
}

function renderCover(previous) {
  const a = cf.answer;
  const x = coverMappedX();
  cf.x = x;
  ui.cfList.dataset.mappedLeft = String(x);
  if (!a || a.key !== cf.key) return;
  const low = x - KEEP_MARGIN, high = x + cf.V + KEEP_MARGIN;
  const wanted = a.items.filter((item) => item.x < high && item.x + item.width > low);
  const wantedIds = new Set(wanted.map((i) => i.id));
  for (const [id, cover] of cf.items) if (!wantedIds.has(id)) { cover.el.remove(); waitingMedia.delete(cover); cf.items.delete(id); }
  let centre = null, centreDistance = Infinity;
  const active = document.activeElement;
  let cursor = ui.cfList.firstElementChild;
  for (const item of wanted) {
    let cover = cf.items.get(item.id);
    if (!cover) { cover = makeCover(item); cf.items.set(item.id, cover); }
    const scale = coverScale(item, x);
    const el = cover.el;
    el.style.left = (item.x - x) + 'px';
    el.style.top = item.y + 'px';
    el.style.width = item.width + 'px';
    el.style.height = item.height + 'px';
    el.style.transform = `scale(${scale})`;
    el.style.zIndex = String(Math.round(scale * 1000));
    el.style.setProperty('--dim', String(Math.min(0.55, (1 - scale) * 0.6)));
    el.dataset.index = String(item.index);
    el.dataset.scale = String(scale);
    el.setAttribute('aria-posinset', String(item.index + 1));
    el.setAttribute('aria-setsize', String(a.totalItems));
    el.setAttribute('aria-label', `Image ${item.id}, ${fmtInt.format(item.index + 1)} of ${fmtInt.format(a.totalItems)}, section ${sectionName(item.section)}`);
    const distance = Math.abs(item.x + item.width / 2 - (x + cf.V / 2));
    if (distance < centreDistance) { centre = item; centreDistance = distance; }
    paintColour(cover.ph, item.color);
    if (item.url) wantImage(cover, item.url);
    if (el === cursor) cursor = cursor.nextElementSibling;
    else ui.cfList.insertBefore(el, cursor);
  }
  if (active && active !== document.activeElement && active.isConnected) active.focus({ preventScroll: true });
  for (const cover of cf.items.values()) {
    const isCentre = centre && cover.id === centre.id;
    cover.el.classList.toggle('centre', !!isCentre);
    cover.el.tabIndex = isCentre ? 0 : -1;
  }
  if (previous) for (const id of wf.flash) { const c = cf.items.get(id); if (c) { c.el.classList.add('flash'); setTimeout(() => c.el.classList.remove('flash'), 1700); } }
  cf.centre = centre;
  renderCoverCaption(centre, a);
}

function makeCover(item) {
  const el = document.createElement('div');
  el.className = 'cf-item';
  el.setAttribute('role', 'listitem');
  el.dataset.id = item.id;
  const media = document.createElement('div');
  media.className = 'media';
  media.style.height = '100%';
  const { ph, ratio } = makePlaceholder(item.id);
  ratio.textContent = ratioLabel(item.width, item.height);
  media.appendChild(ph);
  el.appendChild(media);
  const cover = { el, media, ph, ratio, id: item.id, img: null, broken: false, waiting: null, detailed: false };
  applyDetails(cover);
  return cover;
}

function renderCoverCaption(item, a) {
  ui.cfCaption.textContent = '';
  if (!item) return;
  const title = document.createElement('div');
  title.className = 'cf-title';
  const d = details.get(item.id);
  title.textContent = d && d.title ? d.title : item.id;
  const sub = document.createElement('div');
  sub.className = 'cf-sub';
  const ratio = d ? `${d.width} × ${d.height} · ${pixelRatioLabel(d.width, d.height)}` : ratioLabel(item.width, item.height);
  sub.textContent = `${d && d.title ? item.id + ' · ' : ''}${fmtInt.format(item.index + 1)} of ${fmtInt.format(a.totalItems)} · ${ratio} · ${sectionName(item.section)}`;
  ui.cfCaption.append(title, sub);
}

let coverFrame = false;
function onCoverScroll() {
  if (!coverFrame) {
    coverFrame = true;
    requestAnimationFrame(() => { coverFrame = false; renderCover(null); });
  }
  const x = coverMappedX();
  const a = cf.answer;
  const covered = a && a.key === cf.key && Math.abs(a.x - x) < 0.01;
  if (!covered) scheduleCoverFetch();
  if (!('onscrollend' in window)) { clearTimeout(cf.snapTimer); cf.snapTimer = setTimeout(snapCover, 160); }
}

let coverPointerDown = false;
/** Once scrolling stops: scroll (smoothly) to the API's snap offset for where it stopped
 *  (from the answer for that offset, in hand or asked for). */
function snapCover() {
  if (state.view !== 'coverflow') return;
  cf.snapPending = true;
  if (coverPointerDown) return;
  const a = cf.answer;
  if (a && a.key === cf.key && Math.abs(a.x - coverMappedX()) < 0.01) {
    cf.snapPending = false;
    scrollCoverTo(a.snap);
  } else if (!cf.timer) {
    fetchCover({ force: true });
  }
}
function scrollCoverTo(target) {
  const maxX = Math.max(0, cf.contentWidth - cf.V);
  target = clamp(target, 0, maxX);
  const x = coverMappedX();
  if (Math.abs(target - x) < 0.5) return;
  const left = Math.round(coverScrollFor(target));
  cf.override = { left, x: target };
  ui.cfScroller.scrollTo({ left, behavior: reducedMotion.matches ? 'auto' : 'smooth' });
  if (Math.abs(ui.cfScroller.scrollLeft - left) < 1) { renderCover(null); fetchCover(); }
}
function coverStep(direction) {
  const a = cf.answer;
  if (!a) return;
  const x = coverMappedX();
  const centreX = x + cf.V / 2;
  const sorted = [...a.items].sort((p, q) => p.index - q.index);
  let current = null, best = Infinity;
  for (const item of sorted) {
    const d = Math.abs(item.x + item.width / 2 - centreX);
    if (d < best) { best = d; current = item; }
  }
  if (!current) return;
  const next = sorted.find((i) => i.index === current.index + direction);
  if (next) scrollCoverTo(next.x + next.width / 2 - cf.V / 2);
}

/** The cover flow's scrolling, wheel, click and keys. */
export function wireCoverflow() {
  // Titles or sections that arrive later are said in the caption of the cover in the centre.
  const captionAgain = () => { if (state.view === 'coverflow' && cf.answer) renderCoverCaption(cf.centre, cf.answer); };
  on('details', captionAgain);
  on('sections', captionAgain);
  ui.cfScroller.addEventListener('scroll', onCoverScroll, { passive: true });
  ui.cfScroller.addEventListener('scrollend', () => { snapCover(); });
  ui.cfScroller.addEventListener('pointerdown', () => { coverPointerDown = true; });
  window.addEventListener('pointerup', () => { if (coverPointerDown) { coverPointerDown = false; if (state.view === 'coverflow') { clearTimeout(cf.snapTimer); cf.snapTimer = setTimeout(snapCover, 120); } } });
  ui.cfScroller.addEventListener('wheel', (event) => {
    // A vertical wheel turns the cover flow.
    if (Math.abs(event.deltaY) > Math.abs(event.deltaX)) {
      event.preventDefault();
      cf.override = null;
      ui.cfScroller.scrollLeft += event.deltaY;
    }
  }, { passive: false });
  ui.cfList.addEventListener('click', (event) => {
    const el = event.target.closest('.cf-item');
    if (!el || !cf.answer) return;
    const item = cf.answer.byId.get(el.dataset.id);
    if (item) scrollCoverTo(item.x + item.width / 2 - cf.V / 2);
    el.focus({ preventScroll: true });
  });
  ui.coverflow.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && cf.centre && cf.answer && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      const cover = cf.items.get(cf.centre.id);
      openLightbox(cf.centre, cover ? cover.el : null, cf.answer.totalItems);
      return;
    }
    if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
      event.preventDefault();
      coverStep(event.key === 'ArrowLeft' ? -1 : 1);
    }
  });

}
