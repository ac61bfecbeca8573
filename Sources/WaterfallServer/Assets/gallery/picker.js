// The bar's pickers: feed, layout and view, the feed's counts, and the address (#feed=…) that keeps the choice.

import { state, wf } from './state.js';
import { ui } from './dom.js';
import { clamp, enc, fmtInt } from './format.js';
import { apiGet } from './api.js';
import { failed } from './messages.js';
import { loadSections, sectionInfo } from './sections.js';
import { details } from './details.js';
import { FIT_COLUMN, FIT_ROW_HEIGHT, layoutKind } from './layouts.js';
import { resetWaterfall, stageSize, startWaterfall } from './waterfall.js';
import { cancelRestore, linkedPlace, topPlace } from './place.js';
import { dropGrabbed } from './keyboard.js';
import { cf, startCover } from './coverflow.js';
import { startLive } from './live.js';

export function noteRevision(revision) {
  if (typeof revision === 'number' && revision > state.revision) {
    state.revision = revision;
    renderMeta();
  }
}

function renderMeta() {
  const feed = state.feeds.find((f) => f.name === state.feed);
  if (!feed) { ui.meta.textContent = ''; return; }
  const images = `${fmtInt.format(feed.images)} image${feed.images === 1 ? '' : 's'}`;
  const sections = `${fmtInt.format(feed.sections)} section${feed.sections === 1 ? '' : 's'}`;
  // In parts that wrap whole, so that a narrow bar wraps the counts rather than cutting them off.
  const parts = [images, ` · ${sections}`, ` · rev. ${fmtInt.format(Math.max(state.revision, feed.revision))}`];
  ui.meta.textContent = '';
  for (const part of parts) {
    const span = document.createElement('span');
    span.className = 'meta-part';
    span.textContent = part;
    ui.meta.appendChild(span);
  }
  ui.meta.title = `${images}, ${sections}, revision ${fmtInt.format(Math.max(state.revision, feed.revision))}`;
}

export async function refreshFeedSummary() {
  try {
    const { body } = await apiGet(`/v1/feeds/${enc(state.feed)}`);
    const index = state.feeds.findIndex((f) => f.name === body.name);
    if (index >= 0) state.feeds[index] = body;
    renderMeta();
  } catch { /* the next answer will say */ }
}

/** What the address asks for: `#feed=F&layout=L&view=V&id=ID` (each part optional), or a bare
 *  `#ID` (an image of the first feed). The offset of a place comes from the history entry,
 *  which a reload keeps, when it is about the same image. */
export function readHash() {
  const fragment = location.hash.slice(1);
  if (fragment && !fragment.includes('=')) {
    let id = fragment;
    try { id = decodeURIComponent(fragment); } catch { /* kept as written */ }
    return { feed: null, layout: null, view: null, id };
  }
  const params = new URLSearchParams(fragment);
  return { feed: params.get('feed'), layout: params.get('layout'), view: params.get('view'), id: params.get('id') };
}
export function placeOf(wanted) {
  if (!wanted.id) return null;
  const kept = history.state && history.state.place;
  return kept && kept.id === wanted.id && Number.isFinite(kept.offset) ? { id: kept.id, offset: kept.offset } : linkedPlace(wanted.id);
}
/** Writes the choice and the place into the address (replacing the entry: scrolling makes no history). */
export function writeHash() {
  const params = new URLSearchParams();
  if (state.feed) params.set('feed', state.feed);
  if (state.layout && state.layout !== 'fit') params.set('layout', state.layout);
  if (state.view !== 'waterfall') params.set('view', state.view);
  const place = state.view === 'coverflow' ? null : state.place;
  if (place) params.set('id', place.id);
  const hash = params.toString();
  history.replaceState(place ? { place } : null, '', hash ? '#' + hash : location.pathname + location.search);
}

function renderViewSwitch() {
  const justified = state.justifiedInline || state.layouts.some((l) => layoutKind(l) === 'justified');
  for (const button of ui.view.querySelectorAll('button')) {
    if (button.dataset.view === 'justified') button.hidden = !justified;
    const on = button.dataset.view === state.view;
    button.setAttribute('aria-checked', on ? 'true' : 'false');
    button.tabIndex = on ? 0 : -1;
  }
}

export function renderLayoutPicker() {
  ui.layout.textContent = '';
  const kind = state.view === 'justified' ? 'justified' : 'waterfall';
  const fit = document.createElement('option');
  fit.value = 'fit';
  stageSize();
  if (kind === 'justified') fit.textContent = `Fit the window (rows of ${FIT_ROW_HEIGHT})`;
  else {
    const columns = clamp(Math.floor(Math.max(120, wf.W) / FIT_COLUMN), 1, 64);
    fit.textContent = `Fit the window (${columns} column${columns === 1 ? '' : 's'})`;
  }
  ui.layout.appendChild(fit);
  const saved = state.layouts.filter((l) => layoutKind(l) === kind);
  if (saved.length) {
    const group = document.createElement('optgroup');
    group.label = 'Saved layouts';
    for (const layout of saved) {
      const option = document.createElement('option');
      option.value = layout.name;
      const c = layout.configuration;
      const overrides = (c.sections || []).length;
      option.textContent = (kind === 'justified'
        ? `${layout.name} — rows of ${c.rowHeight}, ${c.width} wide`
        : `${layout.name} — ${c.columns} column${c.columns === 1 ? '' : 's'}, ${c.width} wide`)
        + (overrides ? `, ${overrides} section${overrides === 1 ? '' : 's'} of their own` : '');
      group.appendChild(option);
    }
    ui.layout.appendChild(group);
  }
  if (state.layout !== 'fit' && !saved.some((l) => l.name === state.layout)) state.layout = 'fit';
  ui.layout.value = state.layout;
  ui.layout.disabled = state.view === 'coverflow';
  ui.layoutField.title = state.view === 'coverflow' ? 'Cover flow sizes its images to the window' : '';
}

export async function loadFeeds(preferred) {
  const { body } = await apiGet('/v1/feeds');
  state.feeds = body.feeds;
  ui.feed.textContent = '';
  for (const feed of state.feeds) {
    const option = document.createElement('option');
    option.value = feed.name;
    option.textContent = `${feed.name} (${fmtInt.format(feed.images)})`;
    ui.feed.appendChild(option);
  }
  ui.feed.disabled = state.feeds.length === 0;
  if (!state.feeds.length) {
    const option = document.createElement('option');
    option.textContent = 'No feeds';
    ui.feed.appendChild(option);
    return null;
  }
  const name = state.feeds.some((f) => f.name === preferred) ? preferred : state.feeds[0].name;
  ui.feed.value = name;
  return name;
}

export async function selectFeed(name, { layout = 'fit', view = state.view, place = null } = {}) {
  state.feed = name;
  const feed = state.feeds.find((f) => f.name === name);
  state.revision = feed ? feed.revision : 0;
  state.etag = null;
  details.clear();
  sectionInfo.clear();
  document.title = `${name} · Waterfall`;
  dropGrabbed(false);
  const { body } = await apiGet(`/v1/feeds/${enc(name)}/layouts`);
  if (state.feed !== name) return;
  state.layouts = body.layouts;
  state.layout = layout || 'fit';
  state.view = view;
  if (state.view === 'justified' && !state.justifiedInline && !state.layouts.some((l) => layoutKind(l) === 'justified')) state.view = 'waterfall';
  renderMeta();
  renderViewSwitch();
  renderLayoutPicker();
  showView(place);
  startLive();
  loadSections();
}

/** Shows the chosen view and loads it, at `place` (an image kept at the top: place.js) when given. */
function showView(place = null) {
  state.place = state.view === 'coverflow' ? null : place;
  writeHash();
  const cover = state.view === 'coverflow';
  document.body.classList.toggle('view-coverflow', cover);
  document.body.classList.toggle('view-waterfall', !cover);
  document.documentElement.classList.toggle('no-scroll', cover);
  ui.coverflow.hidden = !cover;
  ui.stage.hidden = cover;
  if (cover) {
    cancelRestore();
    resetWaterfall();
    ui.spacer.style.height = '0px';
    ui.spacer.style.width = '1px';
    window.scrollTo(0, 0);
    startCover();
  } else {
    if (cf.controller) cf.controller.abort();
    startWaterfall({ place: state.place });
  }
}

function setView(view) {
  const place = topPlace();
  const wasJustified = state.view === 'justified';
  state.view = view;
  if ((view === 'justified') !== wasJustified) state.layout = 'fit';
  renderViewSwitch();
  renderLayoutPicker();
  showView(place);
}

/** The pickers' handlers, and back and forward following the address. */
export function wirePickers() {
  ui.feed.addEventListener('change', () => {
    selectFeed(ui.feed.value, { layout: 'fit', view: state.view }).catch(failed);
  });
  ui.layout.addEventListener('change', () => {
    const place = topPlace();
    state.layout = ui.layout.value;
    showView(place);
  });
  ui.view.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-view]');
    if (!button || button.dataset.view === state.view) return;
    setView(button.dataset.view);
  });
  ui.view.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    const buttons = [...ui.view.querySelectorAll('button')].filter((b) => !b.hidden);
    const index = buttons.findIndex((b) => b.dataset.view === state.view);
    const next = buttons[(index + (event.key === 'ArrowRight' ? 1 : buttons.length - 1)) % buttons.length];
    event.preventDefault();
    setView(next.dataset.view);
    next.focus();
  });

  // Back, forward or an edited address: follow the fragment (#feed=…&layout=…&view=…&id=…).
  window.addEventListener('hashchange', () => {
    const wanted = readHash();
    const view = ['waterfall', 'justified', 'coverflow'].includes(wanted.view) ? wanted.view : 'waterfall';
    const layout = wanted.layout || 'fit';
    const place = placeOf(wanted);
    const feed = wanted.feed || state.feed;
    if (feed !== state.feed && state.feeds.some((f) => f.name === feed)) {
      ui.feed.value = feed;
      selectFeed(feed, { layout, view, place }).catch(failed);
    } else if (view !== state.view || layout !== state.layout || (place && (!state.place || place.id !== state.place.id))) {
      state.view = view;
      state.layout = layout;
      renderViewSwitch();
      renderLayoutPicker();
      showView(place || topPlace());
    }
  });
}
