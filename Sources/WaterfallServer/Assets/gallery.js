// Waterfall gallery, the entry module: starts the page and wires the other modules (Assets/gallery/*.js).

import { cf, state, wf } from './gallery/state.js';
import { ui } from './gallery/dom.js';
import { apiGet, inFlight } from './gallery/api.js';
import { failed, showEmpty } from './gallery/messages.js';
import { currentLayout } from './gallery/layouts.js';
import { mappedTop, scrollToContent, setContentHeight, wireScrolling } from './gallery/scroll.js';
import { fetchViewport, renderWaterfall, stageSize, startWaterfall, wireWaterfall } from './gallery/waterfall.js';
import { wireScrubber } from './gallery/scrubber.js';
import { wireDrag } from './gallery/drag.js';
import { wireKeyboard } from './gallery/keyboard.js';
import { wireLightbox } from './gallery/lightbox.js';
import { COVER_FACTOR, coverMappedX, startCover, wireCoverflow } from './gallery/coverflow.js';
import { stopLive, wireLive } from './gallery/live.js';
import { loadFeeds, openLink, placeOf, renderLayoutPicker, selectFeed, wirePickers } from './gallery/picker.js';
import { readHash } from './gallery/address.js';
import { wireHeaders } from './gallery/headers.js';
import { topPlace } from './gallery/place.js';
import { loadAccess, renderKeyButton, wireKeyPanel } from './gallery/key.js';
import { renderShareButton, wireShare } from './gallery/share.js';
import { feedPath, LINK } from './gallery/scope.js';

/** Detects inline justified layouts from the server's own description: the viewport query
 *  takes `kind` with `justified` among its values once that kind exists. */
async function detectKinds() {
  try {
    const { body } = await apiGet('/openapi.json');
    const operation = body.paths && body.paths['/v1/feeds/{feed}/viewport'] && body.paths['/v1/feeds/{feed}/viewport'].get;
    const resolve = (p) => (p && p.$ref ? p.$ref.split('/').slice(1).reduce((o, k) => (o ? o[k] : undefined), body) : p);
    const parameters = ((operation && operation.parameters) || []).map(resolve).filter(Boolean);
    const kind = parameters.find((p) => p.name === 'kind');
    const values = kind && kind.schema ? (kind.schema.enum || (kind.schema.$ref ? (resolve(kind.schema) || {}).enum : null) || []) : [];
    state.justifiedInline = values.includes('justified') && parameters.some((p) => p.name === 'rowHeight');
  } catch { state.justifiedInline = false; }
}

/** Starts (and, after the API key changed, restarts) the page: the server's kinds, the key's access, the feeds;
 *  on a share link's page (`/s/{token}/gallery`), what the link hands out, read-only and without a key. */
async function boot() {
  if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
  stageSize();
  renderKeyButton();
  const wanted = readHash();
  if (wanted.view === 'coverflow' || wanted.view === 'justified' || wanted.view === 'waterfall') state.view = wanted.view;
  try {
    await detectKinds();
    if (LINK) {
      state.canWrite = false;
      document.documentElement.dataset.readOnly = 'true';
      await openLink(wanted);
      return;
    }
    await loadAccess();
    renderShareButton();
    const name = await loadFeeds(wanted.feed);
    if (!name) {
      stopLive();
      showEmpty({ title: 'No feeds yet', text: 'Import one with <code>waterfall import FILE</code> (or <code>PUT /v1/feeds/NAME</code>) and reload this page.' });
      return;
    }
    const asked = wanted.feed === name || (!wanted.feed && !!wanted.id);
    await selectFeed(name, {
      layout: asked ? wanted.layout || 'fit' : 'fit', view: state.view, place: asked ? placeOf(wanted) : null,
      savedView: asked ? wanted.savedView : null,
    });
  } catch (error) {
    stopLive();
    if (LINK && error.status === 404) {
      showEmpty({ title: 'This link answers nothing', text: 'The share link was removed, or it expired. Ask whoever shared it for a new one.' });
      return;
    }
    failed(error);
    if (error.status === 401 && /expired/.test(error.message)) {
      showEmpty({ title: 'The API key expired', text: 'The key saved in this browser has expired. Ask for a new one (<code>waterfall key add</code>) and enter it with the key button.' });
    } else if (error.status === 401) {
      showEmpty({ title: 'An API key is needed', text: 'This server’s database has API keys. Enter one with the key button, or run <code>waterfall serve --public-read</code>.' });
    }
  }
}

// Every module's event handlers.
wirePickers();
wireKeyPanel(boot);
wireShare();
wireWaterfall();
wireHeaders();
wireScrolling();
wireDrag();
wireLightbox();
wireKeyboard();
wireScrubber(() => relayout());
wireCoverflow();
wireLive();

// A new window size (or bar height, or scrubber width) lays the view out again, keeping the
// image at the top of the window there (place.js).
let resizeTimer = 0;
let lastSize = '';
function relayout() {
  clearTimeout(resizeTimer);
  resizeTimer = 0;
  stageSize();
  const size = `${wf.W}x${wf.H}`;
  if (size === lastSize) return;
  lastSize = size;
  if (!state.feed) return;
  if (state.view === 'coverflow') { startCover(); return; }
  renderLayoutPicker();
  const layout = currentLayout();
  if (layout.key !== wf.key) startWaterfall({ place: topPlace() });
  else { setContentHeight(wf.contentHeight); renderWaterfall(null); fetchViewport({ force: true }); }
}
const resized = () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(relayout, 120);
};
window.addEventListener('resize', resized);
new ResizeObserver(resized).observe(ui.bar);

// For people and tests poking at the page: the state behind what is drawn.
window.gallery = Object.freeze({
  /** Content y at the top of the stage (the box of frame y is drawn at y - mappedTop). */
  get mappedTop() { return state.view === 'coverflow' ? 0 : mappedTop(); },
  /** Content x at the left of the cover flow. */
  get mappedLeft() { return coverMappedX(); },
  get feed() { return state.feed; },
  /** The saved view shown (its name), or null: the whole feed. */
  get savedView() { return state.savedView; },
  /** The path what is shown is read under: `/v1/feeds/F`, `/v1/feeds/F/views/V` or `/s/{token}`. */
  get path() { return feedPath(); },
  get layout() { return state.layout; },
  get view() { return state.view; },
  get revision() { return state.revision; },
  get etag() { return state.etag; },
  get contentHeight() { return wf.contentHeight; },
  get spacerHeight() { return wf.spacerHeight; },
  get viewportHeight() { return wf.H; },
  /** The query string of the layout shown (inline configuration or saved layout's path). */
  get layoutQuery() { const l = currentLayout(); return { base: l.base, params: l.params }; },
  /** The cover flow's query parameters besides `x` (its viewport width is the scroller's). */
  get coverQuery() {
    return { itemHeight: cf.itemHeight, viewportWidth: cf.V, sectionInset: `${cf.insetTop},${cf.pad},${cf.insetTop},${cf.pad}`, factor: COVER_FACTOR };
  },
  /** True when no request is in flight or waiting. */
  get idle() { return inFlight === 0 && !wf.timer && !cf.timer && !wf.controller && !cf.controller && !wf.restoring; },
  /** Scrolls the waterfall so that content y `y` is at the top of the stage. */
  scrollToContentY(y) { scrollToContent(y); },
});

boot();
