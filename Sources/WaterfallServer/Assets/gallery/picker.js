// The bar's pickers: feed, saved view, layout and display, what is shown counted, and the address (#feed=…) that keeps the choice.

import { cf, state, wf } from './state.js';
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
import { startCover } from './coverflow.js';
import { startLive } from './live.js';
import { LINK } from './scope.js';
import { renderMeta, summaryOf } from './meta.js';
import { readHash, writeHash } from './address.js';

export function placeOf(wanted) {
  if (!wanted.id) return null;
  const kept = history.state && history.state.place;
  return kept && kept.id === wanted.id && Number.isFinite(kept.offset) ? { id: kept.id, offset: kept.offset } : linkedPlace(wanted.id);
}
function renderViewSwitch() {
  const justified = state.justifiedInline || state.layouts.some((l) => layoutKind(l) === 'justified');
  // A link limited to one layout shows that layout alone: no other kind, no cover flow.
  const limited = !!(LINK && LINK.layout);
  for (const button of ui.view.querySelectorAll('button')) {
    if (button.dataset.view === 'justified') button.hidden = !justified;
    if (limited) button.hidden = button.dataset.view !== state.view;
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
  // A share link limited to one layout answers no other: no "fit the window" (LINK.layout).
  if (LINK && LINK.layout) fit.remove();
  if (state.layout !== 'fit' && !saved.some((l) => l.name === state.layout)) state.layout = LINK && LINK.layout ? LINK.layout : 'fit';
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

/** The feed's saved views (`GET /v1/feeds/{feed}/views`), or none (a server without them). */
async function loadViews(name) {
  try {
    const { body } = await apiGet(`/v1/feeds/${enc(name)}/views`);
    return body.views || [];
  } catch (error) {
    if (error.status === 401) throw error;
    return [];
  }
}

/** The saved-view picker: the whole feed, or one of its views (hidden when it has none). */
function renderViewPicker() {
  ui.subset.textContent = '';
  const feed = state.feeds.find((f) => f.name === state.feed);
  const all = document.createElement('option');
  all.value = '';
  all.textContent = feed ? `All images (${fmtInt.format(feed.images)})` : 'All images';
  ui.subset.appendChild(all);
  for (const view of state.views) {
    const option = document.createElement('option');
    option.value = view.name;
    option.textContent = `${view.name} (${fmtInt.format(view.images)})`;
    ui.subset.appendChild(option);
  }
  ui.subset.value = state.savedView || '';
  ui.subsetField.hidden = !state.views.length;
}

export async function selectFeed(name, { layout = 'fit', view = state.view, place = null, savedView = null } = {}) {
  state.feed = name;
  state.savedView = savedView || null;
  const feed = state.feeds.find((f) => f.name === name);
  state.summary = feed ? summaryOf(feed) : null;
  state.revision = feed ? feed.revision : 0;
  state.etag = null;
  details.clear();
  sectionInfo.clear();
  document.title = `${name} · Waterfall`;
  dropGrabbed(false);
  const [{ body }, views] = await Promise.all([apiGet(`/v1/feeds/${enc(name)}/layouts`), loadViews(name)]);
  if (state.feed !== name) return;
  state.layouts = body.layouts;
  state.views = views;
  const shown = views.find((v) => v.name === state.savedView);
  if (!shown) state.savedView = null;
  else state.summary = { name: shown.name, images: shown.images, sections: shown.sections, revision: state.revision };
  renderViewPicker();
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

/** Opens the gallery on what the share link hands out (`LINK`): the feed or view its root
 *  names, the layouts it reaches (its one layout, if it is limited to one). */
export async function openLink(wanted) {
  const { body, etag } = await apiGet(LINK.base);
  state.summary = summaryOf(body, etag);
  state.feed = body.name;
  state.revision = state.summary.revision;
  state.feeds = [];
  state.views = [];
  document.title = `${body.name} · Waterfall`;
  ui.feed.textContent = '';
  const option = document.createElement('option');
  option.textContent = body.name;
  ui.feed.appendChild(option);
  ui.feed.disabled = true;
  ui.subsetField.hidden = true;
  const { body: layouts } = await apiGet(`${LINK.base}/layouts`);
  state.layouts = layouts.layouts;
  if (LINK.layout) {
    const only = state.layouts.find((l) => l.name === LINK.layout);
    state.layout = LINK.layout;
    state.view = only && layoutKind(only) === 'justified' ? 'justified' : 'waterfall';
  } else {
    state.layout = wanted.layout && state.layouts.some((l) => l.name === wanted.layout) ? wanted.layout : 'fit';
    if (['waterfall', 'justified', 'coverflow'].includes(wanted.view)) state.view = wanted.view;
  }
  if (state.view === 'justified' && !state.justifiedInline && !state.layouts.some((l) => layoutKind(l) === 'justified')) state.view = 'waterfall';
  renderMeta();
  renderViewSwitch();
  renderLayoutPicker();
  showView(placeOf(wanted));
  startLive();
  loadSections();
}

/** The pickers' handlers, and back and forward following the address. */
export function wirePickers() {
  ui.feed.addEventListener('change', () => {
    selectFeed(ui.feed.value, { layout: 'fit', view: state.view }).catch(failed);
  });
  ui.subset.addEventListener('change', () => {
    selectFeed(state.feed, { layout: state.layout, view: state.view, savedView: ui.subset.value || null }).catch(failed);
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
    let view = ['waterfall', 'justified', 'coverflow'].includes(wanted.view) ? wanted.view : 'waterfall';
    let layout = wanted.layout || 'fit';
    // A link limited to one layout answers that one alone, whatever the address says.
    if (LINK && LINK.layout) { layout = LINK.layout; view = state.view; }
    const place = placeOf(wanted);
    const feed = wanted.feed || state.feed;
    const savedView = wanted.savedView || null;
    if (!LINK && ((feed !== state.feed && state.feeds.some((f) => f.name === feed)) || savedView !== state.savedView)) {
      ui.feed.value = feed;
      selectFeed(feed, { layout, view, place, savedView }).catch(failed);
    } else if (view !== state.view || layout !== state.layout || (place && (!state.place || place.id !== state.place.id))) {
      state.view = view;
      state.layout = layout;
      renderViewSwitch();
      renderLayoutPicker();
      showView(place || topPlace());
    }
  });
}
