// The waterfall (and justified) view: viewport queries as you scroll, and the boxes drawn where they say.

import { KEEP_MARGIN, state, wf } from './state.js';
import { reducedMotion, ui } from './dom.js';
import { fmtInt, num, ratioLabel } from './format.js';
import { apiGet, isAbort } from './api.js';
import { emptyFeedMessage, failed, showEmpty } from './messages.js';
import { sectionName } from './sections.js';
import { DPR, makePlaceholder, paintColour, waitingMedia, wantImage } from './images.js';
import { applyDetails, scheduleDetails } from './details.js';
import { currentLayout } from './layouts.js';
import { mappedTop, setContentHeight } from './scroll.js';
import { cancelRestore, notePlace, restorePlace } from './place.js';
import { hasHeaders, renderFooters, renderHeaders } from './headers.js';
import { loadSectionIndex, placeScrubber, renderScrubber, scheduleSectionIndex, scrub } from './scrubber.js';
import { noteRevision } from './meta.js';
import { emit, on } from './events.js';

// What it draws comes from the HTTP API, and every box is where the API says: a box of frame
// (x, y, width, height) is drawn at left = x, top = y - mappedTop, in CSS px, inside #canvas
// (see scroll.js for mappedTop). Only the boxes near the visible band are in the page; they come
// from viewport queries made as you scroll (debounced, stale ones aborted).

export const DEBOUNCE_MS = 50;   // viewport queries wait for this much scrolling quiet…
export const MAX_WAIT_MS = 150;  // …but never longer than this while scrolling goes on

export function stageSize() {
  placeScrubber();
  const barHeight = Math.ceil(ui.bar.getBoundingClientRect().height);
  document.documentElement.style.setProperty('--bar-h', barHeight + 'px');
  wf.W = ui.stage.clientWidth || document.documentElement.clientWidth;
  wf.H = Math.max(1, ui.stage.clientHeight || (document.documentElement.clientHeight - barHeight));
  return barHeight;
}

// --- fetching

export function resetWaterfall() {
  if (wf.controller) wf.controller.abort();
  wf.controller = null;
  clearTimeout(wf.timer);
  wf.timer = 0;
  wf.firstScheduled = 0;
  wf.answer = null;
  for (const tile of wf.tiles.values()) tile.el.remove();
  wf.tiles.clear();
  for (const el of wf.headerEls.values()) el.remove();
  wf.headerEls.clear();
  for (const el of wf.footerEls.values()) el.remove();
  wf.footerEls.clear();
  ui.marker.hidden = true;
}

/** Loads the waterfall (or justified) view for the current feed and layout: at `place` (an
 *  image and its offset below the stage's top, see place.js) when one is given, else at the top. */
export function startWaterfall({ place = null } = {}) {
  stageSize();
  const layout = currentLayout();
  cancelRestore();
  resetWaterfall();
  wf.held = null;
  wf.key = layout.key;
  wf.config = layout.config;
  ui.list.setAttribute('aria-label', `Images of ${state.feed}`);
  ui.canvas.style.width = wf.config.width + 'px';
  positionCanvas();
  loadSectionIndex({ force: true });
  if (place) { restorePlace(place, () => fetchViewport({ force: true })); return; }
  state.place = null;
  setContentHeight(0);
  window.scrollTo(0, 0);
  fetchViewport();
}

function positionCanvas() {
  const width = wf.config ? wf.config.width : wf.W;
  wf.left = width < wf.W ? Math.floor((wf.W - width) / 2) : 0;
  ui.canvas.style.left = (wf.left - (width > wf.W ? window.scrollX : 0)) + 'px';
  ui.canvas.classList.toggle('framed', width < wf.W - 40);
}

/** Asks for the viewport soon: `DEBOUNCE_MS` after scrolling pauses, at most `MAX_WAIT_MS` late. */
function scheduleFetch() {
  const now = performance.now();
  if (!wf.firstScheduled) wf.firstScheduled = now;
  clearTimeout(wf.timer);
  const wait = Math.max(0, Math.min(DEBOUNCE_MS, wf.firstScheduled + MAX_WAIT_MS - now));
  wf.timer = setTimeout(() => { wf.timer = 0; wf.firstScheduled = 0; fetchViewport(); }, wait);
}

/** Whether the answer in hand covers the visible band with some margin. */
function answerCovers(top) {
  const a = wf.answer;
  if (!a || a.key !== wf.key) return false;
  const margin = Math.min(wf.H * 0.25, 200);
  const low = Math.max(0, top - margin), high = Math.min(a.contentHeight, top + wf.H + margin);
  return a.y <= low && a.y + a.height >= high;
}

/**
 * One band query: the visible band plus 3/4 of a screen above and below. Two answers for the
 * same band: the natural one (headers where the layout puts them) and the pinned one
 * (`pinOffset` = the distance from the band's top to the visible top, so headers pin at the
 * visible top, exactly as a `pinOffset=0` query of the visible band would place them).
 */
export async function fetchViewport({ flip = false, force = false } = {}) {
  if (!state.feed || state.view === 'coverflow' || wf.restoring) return;
  const top = mappedTop();
  if (!force && !flip && answerCovers(top) && Math.abs(wf.answer.pinTop - top) < 0.01) return;
  if (wf.controller) wf.controller.abort();
  const controller = new AbortController();
  wf.controller = controller;
  const key = wf.key;
  const layout = currentLayout();
  const over = Math.ceil(wf.H * 0.75);
  const y = Math.max(0, Math.floor(top - over));
  const height = Math.max(1, Math.ceil(top + wf.H + over) - y);
  const pinOffset = top - y;
  const band = `${layout.base}viewport?${layout.params}y=${y}&height=${height}&dpr=${DPR}`;
  const wantsHeaders = hasHeaders(wf.config);
  try {
    const [natural, pinned] = await Promise.all([
      apiGet(band, controller.signal),
      wantsHeaders ? apiGet(`${band}&pinOffset=${num(pinOffset)}`, controller.signal) : null,
    ]);
    if (controller.signal.aborted || key !== wf.key) return;
    if (pinned && pinned.body.revision !== natural.body.revision) {
      // A write landed between the two answers: ask again.
      wf.controller = null;
      fetchViewport({ flip, force: true });
      return;
    }
    wf.controller = null;
    applyAnswer({ key, y, height, pinTop: top, natural, pinned }, flip);
  } catch (error) {
    if (isAbort(error) || controller.signal.aborted) return;
    if (wf.controller === controller) wf.controller = null;
    failed(error);
  }
}

function applyAnswer({ key, y, height, pinTop, natural, pinned }, flip) {
  const body = natural.body;
  // Answers can arrive out of order (a refetch after a move racing one after an event): one
  // older than the newest revision seen would show, and tag, a past order. A newer one comes.
  if (body.revision < state.revision) return;
  const previous = wf.answer && wf.answer.key === key ? wf.answer : null;
  const changed = previous && previous.revision !== body.revision;
  const byId = new Map();
  for (const item of body.items) byId.set(item.id, item);
  wf.answer = {
    key, y, height, pinTop,
    revision: body.revision,
    contentHeight: body.contentHeight,
    totalItems: body.totalItems,
    items: body.items,
    byId,
    naturalHeaders: body.headers,
    pinnedHeaders: pinned ? pinned.body.headers : [],
    footers: body.footers,
  };
  noteRevision(body.revision);
  if (body.revision > scrub.revision && scrub.key === key) scheduleSectionIndex();
  state.etag = (pinned || natural).etag || state.etag;
  if (body.contentHeight !== wf.contentHeight) setContentHeight(body.contentHeight);
  showEmpty(body.totalItems === 0 ? emptyFeedMessage() : null);
  const oldPositions = (flip || changed) && previous ? positionsOf(previous) : null;
  renderWaterfall(oldPositions);
  scheduleDetails();
  // The mapping may have moved under us (first answer, a new content height): make sure
  // the band shown is the band answered.
  if (!answerCovers(mappedTop())) scheduleFetch();
  else if (Math.abs(wf.answer.pinTop - mappedTop()) > 0.01 && !wf.timer) scheduleFetch();
}

function positionsOf(answer) {
  const positions = new Map();
  for (const item of answer.items) positions.set(item.id, { x: item.x, y: item.y });
  return positions;
}

// --- drawing

let frameRequested = false;
export function requestRender() {
  if (frameRequested) return;
  frameRequested = true;
  requestAnimationFrame(() => { frameRequested = false; if (state.view !== 'coverflow') renderWaterfall(null); });
}

/**
 * Draws the answer in hand at the current scroll position: the boxes meeting the visible
 * band (and KEEP_MARGIN px around it) at top = y - mappedTop, the headers (pinned at the
 * visible top per DESIGN section 2), the footers. With `oldPositions`, boxes that moved
 * glide from where they were (FLIP).
 */
export function renderWaterfall(oldPositions) {
  const a = wf.answer;
  const top = mappedTop();
  wf.top = top;
  ui.canvas.dataset.mappedTop = String(top);
  ui.list.dataset.mappedTop = String(top);
  positionCanvas();
  renderScrubber();
  if (!a || a.key !== wf.key) return;
  const low = top - KEEP_MARGIN, high = top + wf.H + KEEP_MARGIN;
  const wanted = [];
  for (const item of a.items) {
    if (item.y < high && item.y + item.height > low) wanted.push(item);
  }
  const wantedIds = new Set(wanted.map((item) => item.id));
  const active = document.activeElement;
  for (const [id, tile] of wf.tiles) {
    if (wantedIds.has(id)) continue;
    if (wf.dragged === id) continue;
    tile.el.remove();
    waitingMedia.delete(tile);
    wf.tiles.delete(id);
  }
  const entering = [];
  let cursor = ui.list.firstElementChild;
  for (const item of wanted) {
    let tile = wf.tiles.get(item.id);
    if (!tile) {
      tile = makeTile(item);
      wf.tiles.set(item.id, tile);
      if (oldPositions) entering.push(tile);
    }
    updateTile(tile, item, a, top);
    if (tile.el === cursor) cursor = cursor.nextElementSibling;
    else ui.list.insertBefore(tile.el, cursor);
  }
  if (active && active !== document.activeElement && active.isConnected) active.focus({ preventScroll: true });
  if (wf.pendingFocus) {
    const tile = wf.tiles.get(wf.pendingFocus);
    if (tile) { wf.pendingFocus = null; tile.el.focus({ preventScroll: true }); }
  }
  renderHeaders(a, top);
  renderFooters(a, top);
  emit('rendered');
  if (oldPositions) flipTiles(oldPositions, entering);
  updatePositionPill(a, top);
}

function makeTile(item) {
  const el = document.createElement('div');
  el.className = 'tile';
  el.setAttribute('role', 'listitem');
  el.tabIndex = 0;
  el.dataset.id = item.id;
  const media = document.createElement('div');
  media.className = 'media';
  const { ph, ratio } = makePlaceholder(item.id);
  media.appendChild(ph);
  el.appendChild(media);
  const tile = { el, media, ph, ratio, id: item.id, img: null, broken: false, waiting: null, caption: null, detailed: false, x: NaN, y: NaN, w: NaN, h: NaN, shownTop: NaN, label: '' };
  return tile;
}

function updateTile(tile, item, answer, top) {
  const el = tile.el;
  const captionHeight = wf.config ? wf.config.captionHeight || 0 : 0;
  if (tile.x !== item.x) { el.style.left = item.x + 'px'; tile.x = item.x; }
  if (tile.w !== item.width) { el.style.width = item.width + 'px'; tile.w = item.width; }
  if (tile.h !== item.height) {
    el.style.height = item.height + 'px';
    tile.h = item.height;
    const mediaHeight = Math.max(0, item.height - captionHeight);
    tile.media.style.height = mediaHeight + 'px';
    if (!tile.detailed) tile.ratio.textContent = ratioLabel(item.width, mediaHeight);
    el.classList.toggle('small', item.width < 110 || mediaHeight < 78);
    el.classList.toggle('tiny', item.width < 60 || mediaHeight < 34);
  }
  tile.y = item.y;
  const shownTop = item.y - top;
  if (tile.shownTop !== shownTop) { el.style.top = shownTop + 'px'; tile.shownTop = shownTop; }
  if (captionHeight > 0 && !tile.caption) {
    tile.caption = document.createElement('div');
    tile.caption.className = 'caption';
    tile.caption.style.height = captionHeight + 'px';
    const span = document.createElement('span');
    span.textContent = item.id;
    tile.caption.appendChild(span);
    el.appendChild(tile.caption);
    tile.detailed = false;
  }
  if (!tile.detailed) applyDetails(tile);
  el.dataset.index = String(item.index);
  el.dataset.section = item.section === null ? '' : item.section;
  el.setAttribute('aria-posinset', String(item.index + 1));
  el.setAttribute('aria-setsize', String(answer.totalItems));
  const label = `Image ${item.id}, ${fmtInt.format(item.index + 1)} of ${fmtInt.format(answer.totalItems)}, section ${sectionName(item.section)}`;
  if (tile.label !== label) { el.setAttribute('aria-label', label); tile.label = label; }
  if (wf.flash.has(item.id)) {
    wf.flash.delete(item.id);
    el.classList.remove('flash');
    void el.offsetWidth;
    el.classList.add('flash');
    setTimeout(() => el.classList.remove('flash'), 1700);
  }
  paintColour(tile.ph, item.color);
  if (item.url) wantImage(tile, item.url);
}

function flipTiles(oldPositions, entering) {
  const moving = [];
  const limit = wf.H * 2;
  for (const tile of wf.tiles.values()) {
    const old = oldPositions.get(tile.id);
    if (!old) continue;
    const dx = old.x - tile.x, dy = old.y - tile.y;
    if ((dx || dy) && Math.abs(dy) <= limit) moving.push([tile.el, dx, dy]);
  }
  for (const tile of entering) {
    if (oldPositions.has(tile.id) && Math.abs(oldPositions.get(tile.id).y - tile.y) <= limit) continue;
    tile.el.classList.add('enter');
    setTimeout(() => tile.el.classList.remove('enter'), 450);
  }
  if (reducedMotion.matches || !moving.length) return;
  for (const [el, dx, dy] of moving) {
    el.style.transition = 'none';
    el.style.transform = `translate(${dx}px, ${dy}px)`;
  }
  void ui.list.offsetWidth;
  for (const [el] of moving) {
    el.style.transition = '';
    el.style.transform = '';
  }
}

let pillTimer = 0;
function updatePositionPill(a, top) {
  if (!a.items.length) { ui.position.classList.remove('visible'); return; }
  const headerHeight = wf.config ? wf.config.headerHeight : 0;
  let first = null;
  for (const item of a.items) {
    if (item.y + item.height > top + headerHeight && item.y < top + wf.H && (!first || item.index < first.index)) first = item;
  }
  if (!first) return;
  const text = `${fmtInt.format(first.index + 1)} of ${fmtInt.format(a.totalItems)}`;
  if (ui.position.dataset.text !== text) {
    ui.position.dataset.text = text;
    ui.position.textContent = text;
    const small = document.createElement('small');
    small.textContent = sectionName(first.section);
    ui.position.appendChild(small);
  }
}
function flashPositionPill() {
  if (!wf.answer || wf.answer.totalItems < 40) return;
  ui.position.classList.add('visible');
  clearTimeout(pillTimer);
  pillTimer = setTimeout(() => ui.position.classList.remove('visible'), 1200);
}

function onScroll() {
  if (state.view === 'coverflow') return;
  renderWaterfall(null);
  if (wf.restoring) return;
  if (!answerCovers(mappedTop()) || (wf.answer && Math.abs(wf.answer.pinTop - mappedTop()) > 0.01)) scheduleFetch();
  flashPositionPill();
  notePlace();
}

/** Draws as the document scrolls. */
export function wireWaterfall() {
  window.addEventListener('scroll', onScroll, { passive: true });
  on('scrolled', onScroll);
}
