// Waterfall gallery: plain JavaScript, no dependencies, served by `waterfall serve` at `/`.
//
// What it draws comes from the HTTP API, and every box is where the API says: a box of frame
// (x, y, width, height) is drawn at left = x, top = y - mappedTop, in CSS px, inside #canvas.
// The document scrolls over a spacer of min(contentHeight, 8,000,000) px (browsers cap element
// heights near 16.7 million px, Firefox lower), and the scroll position maps linearly to content
// y, so that the last image of a million-image feed is reachable:
//
//   mappedTop = scrollY / (spacerHeight - viewportHeight) * (contentHeight - viewportHeight)
//
// (1:1 while the content fits under the cap). That mapping is for dragging the scroll bar, which
// must reach the very end; small relative scrolls (the wheel, arrow keys, Page Up/Down, Space)
// move content y by their usual amounts instead: they are taken over, and the page scrolls to
// the scroll position nearest the new content y with the mapping anchored there (an anchor
// holds while the scroll position stays where it put it). Only the boxes near the visible band
// are in the page; they come from viewport queries made as you scroll (debounced, stale ones
// aborted).
(() => {
  'use strict';

  const MAX_SPACER = 8000000;      // px; under every browser's element height cap
  const FIT_COLUMN = 240;          // "fit the window": one column per this many px
  const FIT_HEADER = 44;           // header height of the "fit the window" layouts
  const FIT_ROW_HEIGHT = 220;      // row height of a "fit the window" justified layout
  const DEBOUNCE_MS = 50;          // viewport queries wait for this much scrolling quiet…
  const MAX_WAIT_MS = 150;         // …but never longer than this while scrolling goes on
  const KEEP_MARGIN = 240;         // px of boxes kept in the page beyond the visible band
  const KEY_STORAGE = 'waterfall.apiKey';
  const COVER_FACTOR = 0.0012;     // how fast covers shrink away from the centre (the API's factor)

  const $ = (id) => document.getElementById(id);
  const ui = {
    bar: $('bar'), feed: $('feed'), layout: $('layout'), layoutField: $('layout-field'), view: $('view'),
    meta: $('meta'), live: $('live'), keyButton: $('key-button'), keyPanel: $('key-panel'), keyForm: $('key-form'),
    keyInput: $('key-input'), keyClear: $('key-clear'), keyText: $('key-text'),
    stage: $('stage'), canvas: $('canvas'), list: $('list'), headers: $('headers'), marker: $('marker'),
    empty: $('empty'), position: $('position'), spacer: $('spacer'), notice: $('notice'), announcer: $('announcer'),
    main: $('main'), scrubber: $('scrubber'), scrubberTrack: $('scrubber-track'), scrubberTicks: $('scrubber-ticks'),
    scrubberThumb: $('scrubber-thumb'), scrubberLabel: $('scrubber-label'),
    lightbox: $('lightbox'), lightboxBackdrop: $('lightbox-backdrop'), lightboxFrame: $('lightbox-frame'),
    lightboxTitle: $('lightbox-title'), lightboxSub: $('lightbox-sub'), lightboxPrev: $('lightbox-prev'),
    lightboxNext: $('lightbox-next'), lightboxClose: $('lightbox-close'),
    coverflow: $('coverflow'), cfScroller: $('cf-scroller'), cfStage: $('cf-stage'), cfList: $('cf-list'),
    cfSpacer: $('cf-spacer'), cfCaption: $('cf-caption'),
  };
  const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');

  // ---------------------------------------------------------------- small helpers

  const enc = encodeURIComponent;
  const fmtInt = new Intl.NumberFormat('en-US');
  /** A number for a query string: plain decimal, never exponent notation. */
  function num(value) {
    if (Number.isInteger(value)) return String(value);
    return value.toFixed(4).replace(/\.?0+$/, '');
  }
  function clamp(value, low, high) { return Math.min(high, Math.max(low, value)); }
  function sectionKey(section) { return section === null || section === undefined ? '\u0000' : 's:' + section; }
  // Section titles and image counts (`GET /v1/feeds/{feed}/sections`), by sectionKey.
  const sectionInfo = new Map();
  /** A section's title when the feed gives one, else its id ("No section" for the unnamed one). */
  function sectionName(section) {
    const info = sectionInfo.get(sectionKey(section));
    if (info && info.title) return info.title;
    return section === null || section === undefined ? 'No section' : section;
  }
  function hashHue(text) {
    let h = 2166136261;
    for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); }
    return ((h >>> 0) % 360);
  }
  function gcd(a, b) { while (b) [a, b] = [b, a % b]; return a; }
  const COMMON_RATIOS = [[1, 1], [5, 4], [4, 3], [3, 2], [16, 10], [16, 9], [2, 1], [21, 9], [3, 1]];
  /** "4:3" for a width and height (the smallest ratio within 0.2%), "≈ 3:2" near a common photo
   *  ratio, else "1.37:1" (or "1:1.52" upright). */
  function ratioLabel(width, height) {
    if (!(width > 0 && height > 0)) return '';
    const r = width / height;
    for (let b = 1; b <= 21; b++) {
      const a = Math.round(r * b);
      if (a >= 1 && a <= 21 && Math.abs(a / b - r) / r < 0.002) { const g = gcd(a, b); return `${a / g}:${b / g}`; }
    }
    for (const [a, b] of COMMON_RATIOS) {
      if (Math.abs(a / b - r) / r < 0.025) return `≈ ${a}:${b}`;
      if (Math.abs(b / a - r) / r < 0.025) return `≈ ${b}:${a}`;
    }
    return r >= 1 ? `${r.toFixed(2)}:1` : `1:${(1 / r).toFixed(2)}`;
  }
  /** The ratio of an image's pixel size: exact when small ("4:3", "32:25"), else as above. */
  function pixelRatioLabel(width, height) {
    const g = gcd(width, height);
    if (width / g <= 32 && height / g <= 32) return `${width / g}:${height / g}`;
    return ratioLabel(width, height);
  }
  const dateFormat = new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  /** What a header says under its title: the id (when a title is shown) or the date an id like
   *  "2013-11-14" stands for, and the section's image count. */
  function sectionSubtitle(section) {
    const info = sectionInfo.get(sectionKey(section));
    const parts = [];
    if (info && info.title && section !== null && section !== undefined) parts.push(section);
    else if (typeof section === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(section)) {
      const date = new Date(section + 'T00:00:00Z');
      if (!Number.isNaN(date.getTime())) parts.push(dateFormat.format(date));
    }
    if (info && typeof info.images === 'number') parts.push(`${fmtInt.format(info.images)} image${info.images === 1 ? '' : 's'}`);
    return parts.join(' · ');
  }

  let announceTimer = 0;
  /** Says `text` to screen readers (the aria-live status region). */
  function announce(text) {
    clearTimeout(announceTimer);
    ui.announcer.textContent = '';
    announceTimer = setTimeout(() => { ui.announcer.textContent = text; }, 40);
  }
  let noticeTimer = 0;
  /** A short visible notice under the bar (also read out: it is a status region). */
  function showNotice(text, kind = 'info', ms = 4200) {
    clearTimeout(noticeTimer);
    ui.notice.hidden = true;
    ui.notice.textContent = text;
    ui.notice.dataset.kind = kind;
    void ui.notice.offsetWidth;
    ui.notice.hidden = false;
    noticeTimer = setTimeout(() => { ui.notice.hidden = true; }, ms);
  }

  // ---------------------------------------------------------------- the API

  class ApiError extends Error {
    constructor(status, detail) { super(detail); this.status = status; }
  }
  function apiKey() { try { return localStorage.getItem(KEY_STORAGE) || ''; } catch { return ''; } }
  function apiHeaders(extra = {}) {
    const headers = { Accept: 'application/json', ...extra };
    const key = apiKey();
    if (key) headers.Authorization = 'Bearer ' + key;
    return headers;
  }
  let inFlight = 0;
  function busy(delta) {
    inFlight += delta;
    document.documentElement.dataset.busy = inFlight > 0 ? 'true' : 'false';
  }
  async function readProblem(response) {
    const text = await response.text().catch(() => '');
    try { const body = JSON.parse(text); if (body && body.detail) return body.detail; } catch { /* not a problem document */ }
    return `the server answered ${response.status} ${response.statusText}.`;
  }
  /** GET `path`: `{ body, etag }`, or an ApiError with the problem's detail. */
  async function apiGet(path, signal) {
    busy(1);
    try {
      const response = await fetch(path, { headers: apiHeaders(), signal });
      if (!response.ok) throw new ApiError(response.status, await readProblem(response));
      return { body: await response.json(), etag: response.headers.get('ETag') };
    } finally { busy(-1); }
  }
  async function apiPost(path, payload, extra) {
    busy(1);
    try {
      const response = await fetch(path, {
        method: 'POST', body: JSON.stringify(payload),
        headers: apiHeaders({ 'Content-Type': 'application/json', ...extra }),
      });
      if (!response.ok) throw new ApiError(response.status, await readProblem(response));
      return await response.json();
    } finally { busy(-1); }
  }
  const isAbort = (error) => error && error.name === 'AbortError';

  // ---------------------------------------------------------------- state

  const state = {
    feeds: [],
    feed: null,           // name of the feed shown
    layouts: [],          // saved layouts of the feed: [{ name, configuration }]
    layout: 'fit',        // 'fit' or a saved layout's name
    view: 'waterfall',    // 'waterfall' | 'justified' | 'coverflow'
    justifiedInline: false, // whether inline viewport queries take kind=justified
    revision: 0,          // newest revision seen
    etag: null,           // ETag of the last viewport answer: If-Match of a move
    canWrite: true,       // whether the key (or no key) may move images (`GET /v1/access`)
  };

  // ---------------------------------------------------------------- images and placeholders

  // Images come from each item's url. An origin that fails twice before anything loads from it
  // is given up for this visit (placeholders only): one unreachable host costs two failed loads,
  // not one per image.
  const origins = new Map();
  const failedUrls = new Set();
  const waitingMedia = new Set();
  function originOf(url) {
    try { const u = new URL(url, location.href); return u.origin === location.origin || u.protocol === 'data:' ? null : u.origin; } catch { return undefined; }
  }
  function originState(origin) {
    let o = origins.get(origin);
    if (!o) { o = { ok: false, fails: 0, loading: 0 }; origins.set(origin, o); }
    return o;
  }
  /** Puts the image of `url` into `holder` (a tile or a cover) when its origin allows, else waits. */
  function wantImage(holder, url) {
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
  /** The placeholder: the image's id and aspect ratio on a colour of its own. */
  function makePlaceholder(id) {
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

  // ---------------------------------------------------------------- image details

  // Viewport answers carry frames, not pixel sizes or titles: those come from the images list
  // of the index range on screen, once per image, after the boxes are drawn.
  const details = new Map(); // id -> { width, height, title }
  const detailState = { busy: false, timer: 0 };
  function scheduleDetails() {
    clearTimeout(detailState.timer);
    detailState.timer = setTimeout(loadDetails, 150);
  }
  async function loadDetails() {
    if (detailState.busy || !state.feed) return;
    const cover = state.view === 'coverflow';
    const answer = cover ? cf.answer : wf.answer;
    const holders = cover ? cf.items : wf.tiles;
    if (!answer) return;
    const missing = [];
    for (const id of holders.keys()) {
      const item = answer.byId.get(id);
      if (item && !details.has(id)) missing.push(item.index);
    }
    if (!missing.length) return;
    const low = Math.min(...missing);
    const high = Math.min(Math.max(...missing), low + 199);
    const feed = state.feed;
    detailState.busy = true;
    let added = 0;
    try {
      const { body } = await apiGet(`/v1/feeds/${enc(feed)}/images?offset=${low}&limit=${high - low + 1}`);
      if (feed !== state.feed) return;
      if (details.size > 50000) details.clear();
      for (const image of body.images) {
        if (!details.has(image.id)) added++;
        details.set(image.id, { width: image.width, height: image.height, title: image.title });
      }
    } catch { return; } finally { detailState.busy = false; }
    for (const holder of wf.tiles.values()) applyDetails(holder);
    for (const holder of cf.items.values()) applyDetails(holder);
    if (cover && cf.answer) renderCoverCaption(cf.centre, cf.answer);
    if (added) scheduleDetails();
  }
  function applyDetails(holder) {
    const d = details.get(holder.id);
    if (!d || holder.detailed) return;
    holder.detailed = true;
    holder.ratio.textContent = pixelRatioLabel(d.width, d.height);
    holder.el.title = `${d.title ? d.title + ' · ' : ''}${holder.id} · ${d.width} × ${d.height}`;
    if (holder.caption && d.title) holder.caption.firstChild.textContent = d.title;
  }

  // ---------------------------------------------------------------- waterfall view

  const wf = {
    key: '',              // what the answers are for (feed, layout, window width)
    config: null,         // the layout's configuration (canonical JSON form)
    contentHeight: 0,
    spacerHeight: 0,
    W: 0, H: 0,           // the stage's size
    top: 0,               // content y at the stage's top (mappedTop)
    anchor: null,         // { scrollY, top }: content y `top` at scroll position `scrollY` exactly
    left: 0,              // the canvas's left in the stage
    answer: null,         // the last viewport answers, merged (see applyAnswer)
    tiles: new Map(),     // id -> tile
    headerEls: new Map(), // section key -> element
    footerEls: new Map(),
    controller: null,
    timer: 0, firstScheduled: 0,
    restoreFraction: null,
    pendingFocus: null,
    flash: new Set(),
  };

  function stageSize() {
    placeScrubber();
    const barHeight = Math.ceil(ui.bar.getBoundingClientRect().height);
    document.documentElement.style.setProperty('--bar-h', barHeight + 'px');
    wf.W = ui.stage.clientWidth || document.documentElement.clientWidth;
    wf.H = Math.max(1, ui.stage.clientHeight || (document.documentElement.clientHeight - barHeight));
    return barHeight;
  }

  /** The effective configuration and the query that asks for it. */
  function currentLayout() {
    if (state.layout !== 'fit') {
      const saved = state.layouts.find((l) => l.name === state.layout);
      if (saved) {
        return {
          key: `${state.feed}\u0000saved\u0000${saved.name}\u0000${JSON.stringify(saved.configuration)}`,
          config: saved.configuration,
          base: `/v1/feeds/${enc(state.feed)}/layouts/${enc(saved.name)}/`,
          params: '',
        };
      }
    }
    const width = Math.max(120, wf.W);
    if (state.view === 'justified') {
      const params = `kind=justified&width=${width}&rowHeight=${FIT_ROW_HEIGHT}&headerHeight=${FIT_HEADER}&`;
      return {
        key: `${state.feed}\u0000fit-justified\u0000${width}`,
        config: fitConfig(width, 0),
        base: `/v1/feeds/${enc(state.feed)}/`, params,
      };
    }
    const columns = clamp(Math.floor(width / FIT_COLUMN), 1, 64);
    return {
      key: `${state.feed}\u0000fit\u0000${columns}\u0000${width}`,
      config: fitConfig(width, columns),
      base: `/v1/feeds/${enc(state.feed)}/`,
      params: `columns=${columns}&width=${width}&headerHeight=${FIT_HEADER}&`,
    };
  }
  /** A fit layout's whole configuration: the server's defaults (FIELD_DEFAULTS, which it
   * writes ahead of this script from its field tables) and what the fit sets. */
  function fitConfig(width, columns) {
    return { ...FIELD_DEFAULTS, columns, width, headerHeight: FIT_HEADER };
  }

  // --- the scroll mapping

  function setContentHeight(height) {
    if (height !== wf.contentHeight) wf.anchor = null;
    wf.contentHeight = height;
    wf.spacerHeight = Math.min(height, MAX_SPACER);
    const barHeight = Math.ceil(ui.bar.getBoundingClientRect().height);
    // The document's height: the spacer's, so that the largest scrollY is spacerHeight - H.
    ui.spacer.style.height = (Math.max(wf.spacerHeight, wf.H) + barHeight) + 'px';
    if (scrub.key === wf.key) drawTicks();
    const layoutWidth = wf.config ? wf.config.width : 0;
    ui.spacer.style.width = Math.max(1, Math.ceil(layoutWidth) > wf.W ? Math.ceil(layoutWidth) : 1) + 'px';
  }
  /** Content y at the top of the stage for the document's scroll position. */
  function mappedTop(scrollY = window.scrollY) {
    const C = wf.contentHeight, S = wf.spacerHeight, H = wf.H;
    if (!(C > H)) return 0;
    const anchor = wf.anchor;
    if (anchor && Math.abs(scrollY - anchor.scrollY) < 0.5) return clamp(anchor.top, 0, C - H);
    const y = Math.max(0, scrollY);
    if (S >= C) return Math.min(y, C - H);
    return Math.min(C - H, (y / (S - H)) * (C - H));
  }
  /** The scroll position whose mapped top is `contentY` (as near as the scroll grid allows). */
  function scrollYFor(contentY) {
    const C = wf.contentHeight, S = wf.spacerHeight, H = wf.H;
    if (!(C > H)) return 0;
    const y = clamp(contentY, 0, C - H);
    if (S >= C) return y;
    return (y / (C - H)) * (S - H);
  }
  /** Whether scroll positions stand for more than one content px each (content over the cap). */
  function scaledScroll() { return wf.contentHeight > wf.spacerHeight && wf.spacerHeight > wf.H; }
  /** Puts content y `contentY` at the stage's top, exactly: scrolls to the nearest scroll
   *  position and anchors the mapping there. Draws at once (the scroll position may not move). */
  function scrollToContent(contentY) {
    const y = clamp(contentY, 0, Math.max(0, wf.contentHeight - wf.H));
    wf.anchor = null;
    window.scrollTo(window.scrollX, scrollYFor(y));
    if (scaledScroll()) wf.anchor = { scrollY: window.scrollY, top: y };
    onScroll();
  }
  /** Moves the content by `dy` px (a wheel notch, an arrow key, a page), whatever its height. */
  function scrollByContent(dy) {
    scrollToContent(mappedTop() + dy);
  }
  /** A page: what the browser's Page Down moves (7/8 of the scrolled window). */
  function pageAmount() { return Math.max(40, Math.round(document.documentElement.clientHeight * 0.875)); }

  // --- fetching

  function resetWaterfall() {
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

  /** Loads the waterfall (or justified) view for the current feed and layout from the top, or
   *  at the same fraction of the content when only the window's width changed. */
  function startWaterfall({ keepPosition = false } = {}) {
    stageSize();
    const layout = currentLayout();
    if (keepPosition && wf.contentHeight > wf.H) wf.restoreFraction = wf.top / (wf.contentHeight - wf.H);
    else wf.restoreFraction = null;
    resetWaterfall();
    wf.key = layout.key;
    wf.config = layout.config;
    ui.list.setAttribute('aria-label', `Images of ${state.feed}`);
    ui.canvas.style.width = wf.config.width + 'px';
    positionCanvas();
    if (!keepPosition) {
      setContentHeight(0);
      window.scrollTo(0, 0);
    }
    fetchViewport();
    loadSectionIndex({ force: true });
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
  async function fetchViewport({ flip = false, force = false } = {}) {
    if (!state.feed || state.view === 'coverflow') return;
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
    const band = `${layout.base}viewport?${layout.params}y=${y}&height=${height}`;
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
    if (body.contentHeight !== wf.contentHeight) {
      setContentHeight(body.contentHeight);
      if (wf.restoreFraction !== null) {
        const fraction = wf.restoreFraction;
        wf.restoreFraction = null;
        scrollToContent(fraction * Math.max(0, body.contentHeight - wf.H));
      }
    }
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
  function requestRender() {
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
  function renderWaterfall(oldPositions) {
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
      if (drag && drag.id === id) continue;
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
    if (drag) placeMarker();
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
    const tile = { el, media, ratio, id: item.id, img: null, broken: false, waiting: null, caption: null, detailed: false, x: NaN, y: NaN, w: NaN, h: NaN, shownTop: NaN, label: '' };
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

  /**
   * A setting of one section of a layout (DESIGN section 14): its override's when it gives one,
   * else the layout's own (every setting this page reads is one the kinds share, so a section
   * of another kind inherits it too).
   */
  function sectionSetting(config, section, key) {
    if (!config) return undefined;
    const override = (config.sections || []).find((o) => o.section === section);
    return override && override[key] !== undefined ? override[key] : config[key];
  }

  /** Whether any section of a layout has a header. */
  function hasHeaders(config) {
    if (!config) return false;
    return config.headerHeight > 0 || (config.sections || []).some((o) => o.headerHeight > 0);
  }

  /**
   * Where each header is drawn. A header pins at the visible top while its section has an
   * element in the visible band, pushed up by the section's end:
   * y = min(max(top, naturalY), sectionEnd - headerHeight) (DESIGN section 2, pinOffset 0).
   * At the scroll position of the last answer these are the API's pinned frames themselves;
   * between answers (while scrolling) the same formula runs on what the answers tell.
   */
  function headerPlacements(a, top) {
    if (!hasHeaders(wf.config)) return [];
    const bottom = top + wf.H;
    const meets = (y, h) => y < bottom && y + h > top;
    const natural = new Map(), pinned = new Map();
    for (const h of a.naturalHeaders) natural.set(sectionKey(h.section), h);
    for (const h of a.pinnedHeaders) pinned.set(sectionKey(h.section), h);
    const touched = new Map();   // key -> section id, in content order
    const itemBottoms = new Map();
    const sectionTops = new Map();
    const note = (section, y) => {
      const k = sectionKey(section);
      if (!sectionTops.has(k) || y < sectionTops.get(k)) sectionTops.set(k, y);
    };
    for (const h of a.naturalHeaders) { note(h.section, h.y); if (meets(h.y, h.height)) touched.set(sectionKey(h.section), h.section); }
    for (const item of a.items) {
      const k = sectionKey(item.section);
      note(item.section, item.y);
      itemBottoms.set(k, Math.max(itemBottoms.get(k) ?? -Infinity, item.y + item.height));
      if (meets(item.y, item.height) && !touched.has(k)) touched.set(k, item.section);
    }
    const footerOf = new Map();
    for (const f of a.footers) {
      const k = sectionKey(f.section);
      footerOf.set(k, f);
      note(f.section, f.y);
      if (meets(f.y, f.height) && !touched.has(k)) touched.set(k, f.section);
    }
    const bandEnd = a.y + a.height;
    const exact = Math.abs(top - a.pinTop) < 0.01;
    const placements = [];
    for (const [k, section] of touched) {
      const headerHeight = sectionSetting(wf.config, section, 'headerHeight') || 0;
      const sectionInset = sectionSetting(wf.config, section, 'sectionInset');
      const footerInset = sectionSetting(wf.config, section, 'footerInset');
      const insetBottom = (sectionInset || FIELD_DEFAULTS.sectionInset).bottom;
      const footerInsetTop = (footerInset || FIELD_DEFAULTS.footerInset).top;
      const answered = pinned.get(k);
      if (exact && answered) { placements.push({ key: k, section, frame: answered, pinned: answered.pinned }); continue; }
      const frame = answered || natural.get(k);
      if (!frame) continue;
      const naturalY = natural.has(k) ? natural.get(k).y : -Infinity;
      // Where the section ends: known when the band shows its end (its footer, a later
      // section, or the end of the content), or from the pinned answer when it pushed it.
      let sectionEnd = Infinity;
      if (answered && answered.pinned && answered.y < a.pinTop - 1e-6) sectionEnd = answered.y + headerHeight;
      else if (footerOf.has(k)) sectionEnd = footerOf.get(k).y - footerInsetTop;
      else if (itemBottoms.has(k)) {
        const end = itemBottoms.get(k);
        let closed = bandEnd >= a.contentHeight;
        if (!closed) for (const [other, y] of sectionTops) if (other !== k && y >= end) { closed = true; break; }
        if (closed) sectionEnd = end + insetBottom;
      }
      const y = Math.min(Math.max(top, naturalY), sectionEnd - headerHeight);
      placements.push({ key: k, section, frame: { x: frame.x, y, width: frame.width, height: frame.height }, pinned: y !== naturalY });
    }
    // Natural headers near the band (not pinned) stay drawn where they are.
    for (const h of a.naturalHeaders) {
      const k = sectionKey(h.section);
      if (touched.has(k)) continue;
      if (h.y < bottom + KEEP_MARGIN && h.y + h.height > top - KEEP_MARGIN) placements.push({ key: k, section: h.section, frame: h, pinned: false });
    }
    return placements;
  }

  function renderHeaders(a, top) {
    const placements = headerPlacements(a, top);
    const seen = new Set();
    for (const p of placements) {
      seen.add(p.key);
      let el = wf.headerEls.get(p.key);
      if (!el) {
        el = document.createElement('div');
        el.className = 'section-header';
        el.setAttribute('role', 'heading');
        el.setAttribute('aria-level', '2');
        el.dataset.section = p.section === null ? '' : p.section;
        el.sectionId = p.section;
        fillHeader(el);
        ui.headers.appendChild(el);
        wf.headerEls.set(p.key, el);
      }
      const f = p.frame;
      el.style.left = f.x + 'px';
      el.style.width = f.width + 'px';
      el.style.height = f.height + 'px';
      el.style.top = (f.y - top) + 'px';
      el.dataset.y = String(f.y);
      el.classList.toggle('pinned', !!p.pinned);
      el.dataset.pinned = p.pinned ? 'true' : 'false';
    }
    for (const [k, el] of wf.headerEls) if (!seen.has(k)) { el.remove(); wf.headerEls.delete(k); }
  }

  function fillHeader(el) {
    el.textContent = '';
    const title = document.createElement('span');
    title.className = 'section-title';
    title.textContent = sectionName(el.sectionId);
    el.appendChild(title);
    const subtitle = sectionSubtitle(el.sectionId);
    if (subtitle) {
      const sub = document.createElement('span');
      sub.className = 'section-sub';
      sub.textContent = subtitle;
      el.appendChild(sub);
    }
  }

  /** Reads the feed's section titles and counts (feeds with very many sections go without). */
  async function loadSections() {
    const feed = state.feeds.find((f) => f.name === state.feed);
    if (!feed || feed.sections > 20000) return;
    try {
      const { body } = await apiGet(`/v1/feeds/${enc(feed.name)}/sections`);
      if (body.feed !== state.feed) return;
      sectionInfo.clear();
      for (const section of body.sections) sectionInfo.set(sectionKey(section.id), { title: section.title, images: section.images });
    } catch { return; }
    for (const el of wf.headerEls.values()) fillHeader(el);
    for (const el of wf.footerEls.values()) el.textContent = `End of ${sectionName(el.sectionId)}`;
    ui.position.dataset.text = '';
    if (state.view === 'coverflow' && cf.answer) renderCoverCaption(cf.centre, cf.answer);
  }

  function renderFooters(a, top) {
    const seen = new Set();
    for (const f of a.footers) {
      if (!(f.y < top + wf.H + KEEP_MARGIN && f.y + f.height > top - KEEP_MARGIN)) continue;
      const k = sectionKey(f.section);
      seen.add(k);
      let el = wf.footerEls.get(k);
      if (!el) {
        el = document.createElement('div');
        el.className = 'section-footer';
        el.sectionId = f.section;
        el.textContent = `End of ${sectionName(f.section)}`;
        ui.headers.appendChild(el);
        wf.footerEls.set(k, el);
      }
      el.style.left = f.x + 'px';
      el.style.width = f.width + 'px';
      el.style.height = f.height + 'px';
      el.style.top = (f.y - top) + 'px';
    }
    for (const [k, el] of wf.footerEls) if (!seen.has(k)) { el.remove(); wf.footerEls.delete(k); }
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
    if (!answerCovers(mappedTop()) || (wf.answer && Math.abs(wf.answer.pinTop - mappedTop()) > 0.01)) scheduleFetch();
    flashPositionPill();
  }

  // ---------------------------------------------------------------- the section scrubber

  // The layout's section index (`…/layouts/{name}/sections`, or `…/section-index` of an inline
  // layout) drawn as a slider beside the feed: its value is the section (1 to the count), its
  // thumb sits where the scroll position is, and moving it (drag, click, keys) puts the top of
  // the chosen section at the top of the stage. End goes to the very end of the content, so
  // that the last images show.
  const scrub = {
    key: '',              // wf.key of the index in hand
    sections: [],         // [{ section, title, index, count, y, height }]
    revision: -1,
    controller: null, timer: 0,
    chosen: null,         // { ordinal, top }: the section chosen here, while the feed stays at top
    dragging: false, pointerId: null, shown: -1,
    labelTimer: 0,
  };

  /** Whether the scrubber has room beside the feed: waterfall and justified views of feeds of
   *  two sections or more (known from the feed's summary before the first answer). */
  function scrubberWanted() {
    if (state.view === 'coverflow') return false;
    const feed = state.feeds.find((f) => f.name === state.feed);
    return !!feed && feed.sections >= 2;
  }
  function placeScrubber() {
    const wanted = scrubberWanted();
    document.body.classList.toggle('has-scrubber', wanted);
    ui.scrubber.hidden = !wanted;
  }

  function scrubberPath() {
    const layout = currentLayout();
    if (layout.params === '') return `${layout.base}sections`;
    return `/v1/feeds/${enc(state.feed)}/section-index?${layout.params.replace(/&$/, '')}`;
  }

  /** Reads the section index for the layout shown, again when the revision moved on. */
  function loadSectionIndex({ force = false } = {}) {
    clearTimeout(scrub.timer);
    scrub.timer = 0;
    if (!state.feed || state.view === 'coverflow' || !scrubberWanted()) return;
    const key = wf.key;
    if (!force && scrub.key === key && scrub.revision >= state.revision) return;
    if (scrub.controller) scrub.controller.abort();
    const controller = new AbortController();
    scrub.controller = controller;
    apiGet(scrubberPath(), controller.signal).then(({ body }) => {
      if (controller.signal.aborted || key !== wf.key) return;
      scrub.controller = null;
      scrub.key = key;
      scrub.revision = body.revision;
      scrub.sections = body.sections;
      scrub.chosen = null;
      scrub.shown = -1;
      drawTicks();
      renderScrubber();
    }).catch((error) => {
      if (scrub.controller === controller) scrub.controller = null;
      if (!isAbort(error)) scrub.sections = [];
    });
  }
  function scheduleSectionIndex() {
    clearTimeout(scrub.timer);
    scrub.timer = setTimeout(() => loadSectionIndex(), 250);
  }

  function scrubberTitle(entry) {
    if (!entry) return '';
    return entry.title || sectionName(entry.section);
  }
  /** The thumb's travel: [0, 1] along the track for a content top. */
  function scrubberFraction(top) {
    const range = wf.contentHeight - wf.H;
    return range > 0 ? clamp(top / range, 0, 1) : 0;
  }
  /** The ordinal (1…) of the section under content y `y`: the last one beginning at or above it. */
  function sectionOrdinalAt(y) {
    const sections = scrub.sections;
    let low = 0, high = sections.length - 1, found = 0;
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (sections[mid].y <= y + 0.5) { found = mid; low = mid + 1; } else high = mid - 1;
    }
    // Several sections may begin at one y (empty ones): the last of them holds what shows.
    return found + 1;
  }
  function currentOrdinal() {
    const top = mappedTop();
    if (scrub.chosen && Math.abs(scrub.chosen.top - top) < 0.5) return scrub.chosen.ordinal;
    scrub.chosen = null;
    return sectionOrdinalAt(top);
  }

  function drawTicks() {
    ui.scrubberTicks.textContent = '';
    const sections = scrub.sections;
    if (sections.length > 400) return;
    const fragment = document.createDocumentFragment();
    for (const entry of sections) {
      const tick = document.createElement('span');
      tick.className = 'scrubber-tick';
      tick.style.top = (scrubberFraction(entry.y) * 100) + '%';
      fragment.appendChild(tick);
    }
    ui.scrubberTicks.appendChild(fragment);
  }

  /** Follows the scroll: the thumb where the content top is, the value the section there. */
  function renderScrubber() {
    if (ui.scrubber.hidden || !scrub.sections.length || scrub.key !== wf.key) return;
    const track = ui.scrubberTrack;
    const fraction = scrubberFraction(mappedTop());
    ui.scrubberThumb.style.top = `calc(${(fraction * 100).toFixed(4)}% - ${(fraction * ui.scrubberThumb.offsetHeight).toFixed(2)}px)`;
    const ordinal = currentOrdinal();
    if (ordinal === scrub.shown) return;
    scrub.shown = ordinal;
    const entry = scrub.sections[ordinal - 1];
    track.setAttribute('aria-valuemax', String(scrub.sections.length));
    track.setAttribute('aria-valuenow', String(ordinal));
    track.setAttribute('aria-valuetext', scrubberTitle(entry));
    ui.scrubber.dataset.section = entry.section === null ? '' : entry.section;
    renderScrubberLabel(entry, ordinal);
  }
  function renderScrubberLabel(entry, ordinal) {
    ui.scrubberLabel.textContent = '';
    const title = document.createElement('strong');
    title.textContent = scrubberTitle(entry);
    const sub = document.createElement('span');
    sub.textContent = `${fmtInt.format(entry.count)} image${entry.count === 1 ? '' : 's'} · section ${fmtInt.format(ordinal)} of ${fmtInt.format(scrub.sections.length)}`;
    ui.scrubberLabel.append(title, sub);
    const fraction = scrubberFraction(mappedTop());
    ui.scrubberLabel.style.top = `calc(${(fraction * 100).toFixed(4)}% + ${((0.5 - fraction) * 60).toFixed(2)}px)`;
  }
  function showScrubberLabel(ms) {
    ui.scrubber.classList.add('active');
    clearTimeout(scrub.labelTimer);
    if (ms) scrub.labelTimer = setTimeout(() => { if (!scrub.dragging) ui.scrubber.classList.remove('active'); }, ms);
  }

  /** Goes to section `ordinal` (1…): its top at the stage's top (as near as the end allows);
   *  `toEnd` goes to the very end of the content instead (End: the last images). */
  function goToSection(ordinal, { toEnd = false } = {}) {
    const sections = scrub.sections;
    if (!sections.length) return;
    ordinal = clamp(ordinal, 1, sections.length);
    const entry = sections[ordinal - 1];
    const end = Math.max(0, wf.contentHeight - wf.H);
    const top = toEnd ? end : clamp(entry.y, 0, end);
    scrollToContent(top);
    scrub.chosen = { ordinal, top: mappedTop() };
    scrub.shown = -1;
    renderScrubber();
  }

  function onScrubberKeyDown(event) {
    if (!scrub.sections.length || event.altKey || event.ctrlKey || event.metaKey) return;
    const now = currentOrdinal();
    const last = scrub.sections.length;
    const steps = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1, PageDown: 10, PageUp: -10 };
    if (event.key in steps) goToSection(now + steps[event.key]);
    else if (event.key === 'Home') goToSection(1);
    else if (event.key === 'End') goToSection(last, { toEnd: true });
    else return;
    event.preventDefault();
    showScrubberLabel(1400);
  }

  /** The section under a pointer on the track (the thumb's travel maps to the content's). */
  function scrubTo(clientY) {
    const rect = ui.scrubberTrack.getBoundingClientRect();
    const thumb = ui.scrubberThumb.offsetHeight;
    const fraction = clamp((clientY - rect.top - thumb / 2) / Math.max(1, rect.height - thumb), 0, 1);
    if (fraction >= 0.999) { goToSection(scrub.sections.length, { toEnd: true }); return; }
    goToSection(sectionOrdinalAt(fraction * Math.max(0, wf.contentHeight - wf.H)));
  }
  function onScrubberPointerDown(event) {
    if (event.button !== 0 || !scrub.sections.length) return;
    event.preventDefault();
    ui.scrubberTrack.focus({ preventScroll: true });
    scrub.dragging = true;
    scrub.pointerId = event.pointerId;
    try { ui.scrubberTrack.setPointerCapture(event.pointerId); } catch { /* a pointer made by a script */ }
    ui.scrubber.classList.add('dragging');
    showScrubberLabel(0);
    scrubTo(event.clientY);
  }
  function onScrubberPointerMove(event) {
    if (!scrub.dragging || event.pointerId !== scrub.pointerId) return;
    scrubTo(event.clientY);
  }
  function onScrubberPointerUp(event) {
    if (!scrub.dragging || event.pointerId !== scrub.pointerId) return;
    scrub.dragging = false;
    ui.scrubber.classList.remove('dragging');
    showScrubberLabel(900);
  }

  // ---------------------------------------------------------------- drag and drop

  let press = null;   // a pointer down on a tile, not yet a drag
  let drag = null;    // the drag under way

  function onPointerDown(event) {
    if (state.view === 'coverflow' || drag || event.button !== 0 || !state.canWrite) return;
    const el = event.target.closest('.tile');
    if (!el || !wf.answer) return;
    cancelPress();
    press = { id: el.dataset.id, el, x0: event.clientX, y0: event.clientY, x: event.clientX, y: event.clientY, pointerId: event.pointerId, type: event.pointerType, timer: 0 };
    if (event.pointerType === 'touch') {
      // Touch: a long press picks the image up; moving first scrolls the page as usual.
      press.timer = setTimeout(() => { if (press) beginDrag(press.x, press.y); }, 380);
    } else {
      event.preventDefault(); // no text selection, no native image drag
    }
  }

  function cancelPress() {
    if (press && press.timer) clearTimeout(press.timer);
    press = null;
  }

  function onPointerMove(event) {
    if (drag && event.pointerId === drag.pointerId) {
      drag.x = event.clientX;
      drag.y = event.clientY;
      drag.fallback = tileOf(event, drag.id);
      moveDrag();
      return;
    }
    if (!press || event.pointerId !== press.pointerId) return;
    press.x = event.clientX;
    press.y = event.clientY;
    const distance = Math.hypot(press.x - press.x0, press.y - press.y0);
    if (press.type === 'touch') { if (distance > 10) cancelPress(); return; }
    if (distance > 4) beginDrag(press.x, press.y);
  }

  /** The tile an event happened on, when it is not the one being dragged. */
  function tileOf(event, except) {
    const el = event.target && event.target.closest ? event.target.closest('.tile') : null;
    return el && ui.list.contains(el) && el.dataset.id !== except ? el : null;
  }

  function onPointerUp(event) {
    if (drag && event.pointerId === drag.pointerId) {
      drag.x = event.clientX;
      drag.y = event.clientY;
      drag.fallback = tileOf(event, drag.id);
      endDrag(true);
      return;
    }
    if (press && event.pointerId === press.pointerId) {
      const { el, id } = press;
      cancelPress();
      // Released over another image without a drag being seen (events made by a script,
      // without coordinates): the same move as a drag.
      const other = tileOf(event, id);
      if (other && event.pointerType !== 'touch') { lastDragEnd = performance.now(); queueMove(() => moveImage(id, { before: other.dataset.id }, `before ${other.dataset.id}`)); return; }
      if (el.isConnected) el.focus({ preventScroll: true });
    }
  }

  function onPointerCancel(event) {
    if (drag && event.pointerId === drag.pointerId) endDrag(false);
    if (press && event.pointerId === press.pointerId) cancelPress();
  }

  function beginDrag(x, y) {
    if (!press) return;
    const { id, el, pointerId } = press;
    cancelPress();
    const item = wf.answer && wf.answer.byId.get(id);
    if (!item || !el.isConnected) return;
    const rect = el.getBoundingClientRect();
    const ghost = el.cloneNode(true);
    ghost.classList.add('ghost');
    ghost.classList.remove('flash', 'enter', 'drop-target');
    for (const attr of ['role', 'tabindex', 'aria-label', 'aria-posinset', 'aria-setsize', 'data-id', 'data-index']) ghost.removeAttribute(attr);
    ghost.setAttribute('aria-hidden', 'true');
    ghost.style.left = '0px';
    ghost.style.top = '0px';
    ghost.style.width = rect.width + 'px';
    ghost.style.height = rect.height + 'px';
    const label = document.createElement('span');
    label.className = 'ghost-label';
    ghost.appendChild(label);
    document.body.appendChild(ghost);
    el.classList.add('dragging');
    document.body.classList.add('is-dragging');
    const scale = clamp(150 / Math.max(rect.width, rect.height), 0.35, 0.85);
    lastDragEnd = Infinity;
    drag = { id, item, pointerId, el, ghost, label, scale, offsetX: x - rect.left, offsetY: y - rect.top, x, y, target: null, raf: 0, lastFrame: performance.now() };
    announce(`Picked up image ${id}. Release it over another image to put it before that image; Escape cancels.`);
    moveDrag();
    drag.raf = requestAnimationFrame(autoScroll);
  }

  /** Follows the pointer: moves the ghost, finds the image under it, shows the insertion marker. */
  function moveDrag() {
    if (!drag) return;
    // The lifted image shrinks toward the pointer, so the drop place stays in sight.
    drag.ghost.style.transformOrigin = `${drag.offsetX}px ${drag.offsetY}px`;
    drag.ghost.style.transform = `translate(${drag.x - drag.offsetX}px, ${drag.y - drag.offsetY}px) rotate(-2deg) scale(${drag.scale})`;
    const hit = Number.isFinite(drag.x) && Number.isFinite(drag.y) ? document.elementFromPoint(drag.x, drag.y) : null;
    let el = hit && hit.closest ? hit.closest('.tile') : null;
    if (!el && drag.fallback && drag.fallback.isConnected) el = drag.fallback;
    const target = el && ui.list.contains(el) && el.dataset.id !== drag.id ? el.dataset.id : null;
    if (target !== drag.target) {
      if (drag.target) { const old = wf.tiles.get(drag.target); if (old) old.el.classList.remove('drop-target'); }
      drag.target = target;
      if (target) { const t = wf.tiles.get(target); if (t) t.el.classList.add('drop-target'); }
      drag.label.textContent = target ? `Before ${target}` : '';
      drag.label.hidden = !target;
    }
    placeMarker();
  }

  /** The insertion marker: a bar in the gap before the target image. */
  function placeMarker() {
    const target = drag && drag.target && wf.answer ? wf.answer.byId.get(drag.target) : null;
    if (!target) { ui.marker.hidden = true; return; }
    const gap = wf.config && wf.config.columnSpacing !== undefined ? wf.config.columnSpacing : FIELD_DEFAULTS.columnSpacing;
    ui.marker.hidden = false;
    ui.marker.style.left = (target.x - Math.max(2, gap / 2) - 2) + 'px';
    ui.marker.style.top = (target.y - wf.top) + 'px';
    ui.marker.style.height = target.height + 'px';
  }

  /** Scrolls while the dragged image is held near the stage's top or bottom edge. */
  function autoScroll(now) {
    if (!drag) return;
    const dt = Math.min(50, now - drag.lastFrame);
    drag.lastFrame = now;
    const rect = ui.stage.getBoundingClientRect();
    const edge = 56;
    let speed = 0;
    if (drag.y < rect.top + edge) speed = -((rect.top + edge - drag.y) / edge);
    else if (drag.y > rect.bottom - edge) speed = (drag.y - (rect.bottom - edge)) / edge;
    if (speed) {
      const pixels = clamp(speed, -1.5, 1.5) * 0.9 * dt; // up to ~1.35 px/ms
      if (scaledScroll()) scrollByContent(pixels);
      else window.scrollBy(0, pixels);
      moveDrag();
    }
    drag.raf = requestAnimationFrame(autoScroll);
  }

  function endDrag(commit) {
    if (!drag) return;
    const d = drag;
    if (commit) moveDrag();
    cancelAnimationFrame(d.raf);
    drag = null;
    lastDragEnd = performance.now();
    d.ghost.remove();
    d.el.classList.remove('dragging');
    if (d.target) { const t = wf.tiles.get(d.target); if (t) t.el.classList.remove('drop-target'); }
    document.body.classList.remove('is-dragging');
    ui.marker.hidden = true;
    requestRender();
    if (!commit || !d.target) { announce(`Image ${d.id} put back.`); return; }
    const target = wf.answer && wf.answer.byId.get(d.target);
    if (target && target.index === d.item.index + 1 && target.section === d.item.section) {
      announce(`Image ${d.id} is already before ${d.target}.`);
      return;
    }
    queueMove(() => moveImage(d.id, { before: d.target }, `before ${d.target}`));
  }

  // Moves go one at a time: each is sent with the ETag of the answer read after the one before.
  let moveChain = Promise.resolve();
  function queueMove(move) {
    moveChain = moveChain.then(move, move).catch(failed);
    return moveChain;
  }

  /**
   * Persists one move with If-Match (the ETag of the last viewport answer); 412: someone else
   * changed the feed since, so refetch and say so. The boxes then glide to their new places.
   */
  async function moveImage(id, where, description) {
    const tile = wf.tiles.get(id);
    if (tile) tile.el.classList.add('saving');
    // If-Match with the tag of the answer on screen; when this page's own last move is newer
    // than that answer (its refetch still under way), the revision that move answered.
    const tagged = state.etag && Number(state.etag.replace(/^W\//, '').slice(1).split('-')[0]);
    const headers = state.etag && tagged === state.revision ? { 'If-Match': state.etag }
      : state.revision > 0 ? { 'X-Feed-Revision': String(state.revision) } : {};
    try {
      const result = await apiPost(`/v1/feeds/${enc(state.feed)}/reorder`, { moves: [{ id, ...where }] }, headers);
      noteRevision(result.revision);
      wf.flash.add(id);
      if (state.view === 'coverflow') await fetchCover({ force: true });
      else await fetchViewport({ flip: true, force: true });
      const now = wf.answer && wf.answer.byId.get(id);
      announce(`Moved image ${id} ${description}${now ? `; it is now ${fmtInt.format(now.index + 1)} of ${fmtInt.format(wf.answer.totalItems)}` : ''}.`);
      return true;
    } catch (error) {
      if (error.status === 412) {
        showNotice('Someone else changed this feed; refreshed.');
        announce('Someone else changed this feed; refreshed. The move was not made.');
        if (state.view === 'coverflow') fetchCover({ force: true });
        else fetchViewport({ flip: true, force: true });
      } else {
        failed(error);
      }
      return false;
    } finally {
      const t = wf.tiles.get(id);
      if (t) t.el.classList.remove('saving');
    }
  }

  // ---------------------------------------------------------------- keyboard

  let grabbed = null; // id picked up with Space

  /** The image at catalog `index`: from the answer in hand, else a one-image page query. */
  async function itemAt(index) {
    if (!wf.answer || index < 0 || index >= wf.answer.totalItems) return null;
    for (const item of wf.answer.items) if (item.index === index) return item;
    const layout = currentLayout();
    const { body } = await apiGet(`${layout.base}page?${layout.params}offset=${index}&limit=1`);
    return body.items[0] || null;
  }

  /** Scrolls so that `item` is in view (under a pinned header), then focuses its box. */
  function reveal(item, focus = true) {
    const headerHeight = wf.config ? wf.config.headerHeight : 0;
    const top = wf.top;
    let target = null;
    if (item.y < top + headerHeight + 4) target = item.y - headerHeight - 12;
    else if (item.y + item.height > top + wf.H - 4) target = item.y + item.height - wf.H + 12;
    if (target !== null) {
      scrollToContent(target);
      fetchViewport();
    }
    if (!focus) return;
    const tile = wf.tiles.get(item.id);
    if (tile) tile.el.focus({ preventScroll: true });
    else wf.pendingFocus = item.id;
  }

  /** One place earlier (-1) or later (+1) in catalog order; across a section boundary the image
   *  joins the neighbouring section at its end (or start). */
  async function stepMove(id, direction) {
    // Neighbours are read off the order on screen: bring it up to the newest revision first.
    if (state.view !== 'coverflow' && wf.answer && wf.answer.revision < state.revision) await fetchViewport({ force: true });
    const item = wf.answer && wf.answer.byId.get(id);
    if (!item) return;
    const neighbour = await itemAt(item.index + direction);
    if (!neighbour) { announce(`Image ${id} is already ${direction < 0 ? 'first' : 'last'}.`); return; }
    const sameSection = neighbour.section === item.section;
    let where, description;
    if (direction < 0) {
      where = sameSection ? { before: neighbour.id } : { after: neighbour.id };
      description = sameSection ? `before ${neighbour.id}` : `to the end of section ${sectionName(neighbour.section)}`;
    } else {
      where = sameSection ? { after: neighbour.id } : { before: neighbour.id };
      description = sameSection ? `after ${neighbour.id}` : `to the start of section ${sectionName(neighbour.section)}`;
    }
    const ok = await moveImage(id, where, description);
    if (ok) {
      const now = wf.answer && wf.answer.byId.get(id);
      if (now) reveal(now);
    }
  }

  /** The nearest box above (-1) or below (+1) `item`, overlapping its column. */
  function spatialNeighbour(item, direction) {
    let best = null, bestDistance = Infinity;
    for (const other of wf.answer.items) {
      if (other.id === item.id) continue;
      const overlap = Math.min(other.x + other.width, item.x + item.width) - Math.max(other.x, item.x);
      if (overlap <= 0) continue;
      const distance = direction < 0 ? item.y - (other.y + other.height) : other.y - (item.y + item.height);
      if (distance < -1) continue;
      if (distance < bestDistance) { best = other; bestDistance = distance; }
    }
    return best;
  }

  async function onListKeyDown(event) {
    const el = event.target.closest && event.target.closest('.tile');
    if (!el || !wf.answer) return;
    const id = el.dataset.id;
    const item = wf.answer.byId.get(id);
    if (!item) return;
    const key = event.key;
    const arrows = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
    if (drag) { if (key === 'Escape') { event.preventDefault(); endDrag(false); } return; }
    if (grabbed === id) {
      if (key in arrows) { event.preventDefault(); await queueMove(() => stepMove(id, arrows[key])); return; }
      if (key === ' ' || key === 'Enter' || key === 'Escape' || key === 'Tab') {
        if (key !== 'Tab') event.preventDefault();
        dropGrabbed(true);
        return;
      }
      return;
    }
    if (((event.altKey && key in arrows) || key === ' ') && !state.canWrite) {
      event.preventDefault();
      announce('This API key may read but not write: images cannot be moved.');
      return;
    }
    if (event.altKey && key in arrows) {
      event.preventDefault();
      await queueMove(() => stepMove(id, arrows[key]));
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (key === 'Enter') {
      event.preventDefault();
      openLightbox(item, el, wf.answer.totalItems);
      return;
    }
    if (key === ' ') {
      event.preventDefault();
      grabbed = id;
      el.classList.add('grabbed');
      el.setAttribute('aria-pressed', 'true');
      announce(`Picked up image ${id}, ${fmtInt.format(item.index + 1)} of ${fmtInt.format(wf.answer.totalItems)}. Arrow keys move it one place; Space puts it down.`);
      return;
    }
    if (key === 'ArrowLeft' || key === 'ArrowRight') {
      event.preventDefault();
      const next = await itemAt(item.index + arrows[key]);
      if (next) reveal(next);
      return;
    }
    if (key === 'ArrowUp' || key === 'ArrowDown') {
      event.preventDefault();
      const next = spatialNeighbour(item, arrows[key]) || await itemAt(item.index + arrows[key]);
      if (next) reveal(next);
      return;
    }
    if (key === 'Home' || key === 'End') {
      event.preventDefault();
      const next = await itemAt(key === 'Home' ? 0 : wf.answer.totalItems - 1);
      if (next) reveal(next);
    }
  }

  function dropGrabbed(say) {
    if (!grabbed) return;
    const tile = wf.tiles.get(grabbed);
    if (tile) { tile.el.classList.remove('grabbed'); tile.el.removeAttribute('aria-pressed'); }
    if (say) announce(`Put down image ${grabbed}.`);
    grabbed = null;
  }

  // ---------------------------------------------------------------- the lightbox

  // An image large, in a modal dialog: opened by a click (not one that ended a drag) or Enter on
  // an image; the arrow keys show its neighbours in catalog order (at any depth: one image of
  // the images list each); Escape closes and gives the focus back to the image it came from.
  const lightbox = { open: false, opener: null, openerId: null, index: -1, total: 0, token: 0 };
  let lastDragEnd = -Infinity;  // when a drag (or a drop made by a script) last ended

  function openLightbox(item, opener, total) {
    if (!state.feed || !item) return;
    dropGrabbed(false);
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
      ({ body } = await apiGet(`/v1/feeds/${enc(state.feed)}/images?offset=${index}&limit=1`));
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

  // ---------------------------------------------------------------- cover flow

  const cf = {
    key: '',
    answer: null,
    contentWidth: 0, spacerWidth: 0,
    V: 0, Hs: 0, itemHeight: 0, insetTop: 0, pad: 0,
    x: 0,
    override: null,     // { left, x }: an exact offset a snap scrolled to
    items: new Map(),   // id -> cover
    controller: null, timer: 0, firstScheduled: 0, snapTimer: 0, snapPending: false, centre: null,
  };

  function coverGeometry() {
    cf.V = ui.cfScroller.clientWidth || wf.W;
    cf.Hs = ui.cfScroller.clientHeight || wf.H;
    cf.itemHeight = clamp(Math.round(cf.Hs * 0.4), 60, 460);
    cf.insetTop = Math.max(0, Math.round((cf.Hs - cf.itemHeight) * 0.34));
    cf.pad = Math.round(cf.V / 2);
    ui.cfStage.style.width = cf.V + 'px';
  }
  function coverKey() { return `${state.feed}\u0000${cf.V}\u0000${cf.Hs}`; }
  function coverMappedX() {
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

  function startCover() {
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
  async function fetchCover({ force = false } = {}) {
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
    const path = `/v1/feeds/${enc(state.feed)}/coverflow?itemHeight=${cf.itemHeight}&viewportWidth=${cf.V + 2 * over}&x=${num(x - over)}&sectionInset=${inset}&factor=${COVER_FACTOR}`;
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
    const cover = { el, media, ratio, id: item.id, img: null, broken: false, waiting: null, detailed: false };
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

  // ---------------------------------------------------------------- live updates

  // The events stream is read with fetch (not EventSource), so that an API key can go in the
  // Authorization header. It reconnects with `since=` the newest revision seen. Tabs of this
  // page share one stream per feed (a Web Lock elects the tab that reads it; it passes every
  // event on over a BroadcastChannel): browsers give a server only six HTTP/1.1 connections,
  // and six open galleries must not take them all.
  //
  // The badge says what is true: "Connecting…" until the stream's answer is open (its headers
  // in, status 200), "Live" only while it is, "Offline — retrying" after it failed or ended
  // (until a retry opens it again); a tab that shares another tab's stream shows that tab's.
  const live = { controller: null, timer: 0, retry: 1000, feed: null, lock: null, leading: false, generation: 0, status: null };
  const channel = 'BroadcastChannel' in window ? new BroadcastChannel('waterfall-gallery-events') : null;
  const sharing = !!(channel && navigator.locks && navigator.locks.request);

  function setLive(mode, text, title) {
    ui.live.dataset.state = mode;
    ui.live.querySelector('.live-text').textContent = text;
    ui.live.title = title || 'Live updates from the feed’s event stream';
  }
  function liveStatus(mode, text, title) {
    setLive(mode, text, title);
    live.status = { mode, text, title };
    if (sharing && live.leading) channel.postMessage({ kind: 'status', feed: live.feed, mode, text, title });
  }

  function startLive() {
    stopLive();
    if (!state.feed) return;
    const feed = state.feed;
    const generation = ++live.generation;
    live.feed = feed;
    if (!sharing) { openStream(feed, generation); return; }
    const release = new AbortController();
    live.lock = release;
    setLive('connecting', 'Connecting…', 'Connecting to the feed’s event stream (or to the tab of this gallery that reads it)');
    // A tab that already reads this feed's stream says how it is.
    channel.postMessage({ kind: 'ask', feed });
    navigator.locks.request(`waterfall-gallery-events:${feed}`, { signal: release.signal }, () => {
      if (release.signal.aborted || generation !== live.generation) return null;
      live.leading = true;
      openStream(feed, generation);
      return new Promise((resolve) => release.signal.addEventListener('abort', resolve, { once: true }));
    }).catch(() => { /* released before it was granted */ });
  }

  function openStream(feed, generation) {
    const controller = new AbortController();
    live.controller = controller;
    if (!live.status || live.status.mode !== 'off') liveStatus('connecting', 'Connecting…', 'Connecting to the feed’s event stream');
    const path = `/v1/feeds/${enc(feed)}/events?since=${state.revision}`;
    (async () => {
      try {
        const response = await fetch(path, { headers: apiHeaders({ Accept: 'text/event-stream' }), signal: controller.signal, cache: 'no-store' });
        if (!response.ok || !response.body) {
          const detail = await readProblem(response);
          throw new ApiError(response.status, detail);
        }
        liveStatus('on', 'Live');
        live.retry = 1000;
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        let event = { type: 'message', data: [] };
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let newline;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            let line = buffer.slice(0, newline);
            buffer = buffer.slice(newline + 1);
            if (line.endsWith('\r')) line = line.slice(0, -1);
            if (line === '') {
              if (event.data.length) {
                const data = event.data.join('\n');
                if (sharing) channel.postMessage({ kind: 'event', feed, type: event.type, data });
                onLiveEvent(event.type, data);
              }
              event = { type: 'message', data: [] };
              continue;
            }
            if (line.startsWith(':')) continue;
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            let data = colon < 0 ? '' : line.slice(colon + 1);
            if (data.startsWith(' ')) data = data.slice(1);
            if (field === 'event') event.type = data;
            else if (field === 'data') event.data.push(data);
          }
        }
        throw new Error('the event stream ended');
      } catch (error) {
        if (controller.signal.aborted || generation !== live.generation) return;
        if (error.status === 401 || error.status === 403) {
          liveStatus('locked', 'No live updates', `Live updates refused: ${error.message}`);
          live.retry = 15000;
        } else {
          liveStatus('off', 'Offline — retrying', `The feed’s event stream is not open (${error.message}); trying again in ${Math.round(live.retry / 1000)} s`);
        }
        live.timer = setTimeout(() => { if (generation === live.generation) openStream(feed, generation); }, live.retry);
        live.retry = Math.min(live.retry * 2, 15000);
      }
    })();
  }

  function stopLive() {
    live.generation++;
    clearTimeout(live.timer);
    if (live.controller) live.controller.abort();
    live.controller = null;
    if (live.lock) live.lock.abort();
    live.lock = null;
    live.leading = false;
    live.status = null;
    setLive('off', 'Offline', 'No feed’s event stream is open');
  }

  if (channel) {
    channel.addEventListener('message', (message) => {
      const m = message.data;
      if (m && m.kind === 'ask' && live.leading && m.feed === live.feed && live.status) {
        channel.postMessage({ kind: 'status', feed: live.feed, ...live.status });
        return;
      }
      if (!m || live.leading || m.feed !== state.feed || !live.lock) return;
      if (m.kind === 'event') onLiveEvent(m.type, m.data);
      else if (m.kind === 'status') setLive(m.mode, m.text, m.title);
    });
  }
  // Leaving the page (or its going into the back-forward cache) closes the stream; coming back
  // opens it again.
  window.addEventListener('pagehide', () => stopLive());
  window.addEventListener('pageshow', (event) => { if (event.persisted && state.feed) startLive(); });

  let liveRefreshTimer = 0;
  function onLiveEvent(type, data) {
    if (type !== 'change') return;
    let change;
    try { change = JSON.parse(data); } catch { return; }
    if (!change || typeof change.revision !== 'number' || change.revision <= state.revision) return;
    for (const c of change.changes || []) if (c.kind === 'move' || c.kind === 'insert') wf.flash.add(c.id);
    if (wf.flash.size > 200) wf.flash.clear();
    clearTimeout(liveRefreshTimer);
    liveRefreshTimer = setTimeout(() => {
      refreshFeedSummary().then(loadSections);
      if (state.view === 'coverflow') fetchCover({ force: true });
      else fetchViewport({ flip: true, force: true });
    }, 30);
  }

  function noteRevision(revision) {
    if (typeof revision === 'number' && revision > state.revision) {
      state.revision = revision;
      renderMeta();
    }
  }

  // ---------------------------------------------------------------- feeds, layouts, views

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

  async function refreshFeedSummary() {
    try {
      const { body } = await apiGet(`/v1/feeds/${enc(state.feed)}`);
      const index = state.feeds.findIndex((f) => f.name === body.name);
      if (index >= 0) state.feeds[index] = body;
      renderMeta();
    } catch { /* the next answer will say */ }
  }

  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    return { feed: params.get('feed'), layout: params.get('layout'), view: params.get('view') };
  }
  function writeHash() {
    const params = new URLSearchParams();
    if (state.feed) params.set('feed', state.feed);
    if (state.layout && state.layout !== 'fit') params.set('layout', state.layout);
    if (state.view !== 'waterfall') params.set('view', state.view);
    const hash = params.toString();
    history.replaceState(null, '', hash ? '#' + hash : location.pathname + location.search);
  }

  function layoutKind(layout) { return (layout.configuration && layout.configuration.kind) || 'waterfall'; }

  function renderViewSwitch() {
    const justified = state.justifiedInline || state.layouts.some((l) => layoutKind(l) === 'justified');
    for (const button of ui.view.querySelectorAll('button')) {
      if (button.dataset.view === 'justified') button.hidden = !justified;
      const on = button.dataset.view === state.view;
      button.setAttribute('aria-checked', on ? 'true' : 'false');
      button.tabIndex = on ? 0 : -1;
    }
  }

  function renderLayoutPicker() {
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

  async function loadFeeds(preferred) {
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

  async function selectFeed(name, { layout = 'fit', view = state.view } = {}) {
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
    showView();
    startLive();
    loadSections();
  }

  /** Shows the chosen view and loads it. */
  function showView() {
    writeHash();
    const cover = state.view === 'coverflow';
    document.body.classList.toggle('view-coverflow', cover);
    document.body.classList.toggle('view-waterfall', !cover);
    document.documentElement.classList.toggle('no-scroll', cover);
    ui.coverflow.hidden = !cover;
    ui.stage.hidden = cover;
    if (cover) {
      resetWaterfall();
      ui.spacer.style.height = '0px';
      ui.spacer.style.width = '1px';
      window.scrollTo(0, 0);
      startCover();
    } else {
      if (cf.controller) cf.controller.abort();
      startWaterfall();
    }
  }

  function emptyFeedMessage() {
    return { title: 'This feed has no images', text: 'Import some with <code>waterfall import FILE --feed NAME</code> or <code>PUT /v1/feeds/NAME</code>; they will show here.' };
  }
  function showEmpty(message) {
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

  function failed(error) {
    if (error.status === 401 && /expired/.test(error.message)) {
      showNotice(`Your API key expired: ${error.message}`, 'error', 8000);
      openKeyPanel(`This key has expired (${error.message.replace(/^the API key /, '')}). Ask for a new one and paste it here.`);
      return;
    }
    if (error.status === 401) {
      showNotice('This server asks for an API key: enter one under the key button.', 'error', 6000);
      openKeyPanel('This server asks for an API key (the database has keys). Paste one; it is kept in this browser only.');
      return;
    }
    if (error.status === 404 && state.feed) {
      showNotice(error.message, 'error');
      return;
    }
    showNotice(error.message || 'Something went wrong.', 'error');
  }

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

  // ---------------------------------------------------------------- the API key

  function openKeyPanel(text) {
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
  function renderKeyButton() { ui.keyButton.dataset.set = apiKey() ? 'true' : 'false'; }

  // ---------------------------------------------------------------- what the key may do

  /** Asks the server what the key (or no key) may do: a read-only key turns moves off, and the
   *  page says so; an expired key's 401 goes to the caller. A server without the route (older)
   *  is taken to allow moves, which it still refuses with 403 if it must. */
  async function loadAccess() {
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

  // ---------------------------------------------------------------- start

  async function boot() {
    if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
    stageSize();
    renderKeyButton();
    const wanted = readHash();
    if (wanted.view === 'coverflow' || wanted.view === 'justified' || wanted.view === 'waterfall') state.view = wanted.view;
    try {
      await detectKinds();
      await loadAccess();
      const name = await loadFeeds(wanted.feed);
      if (!name) {
        stopLive();
        showEmpty({ title: 'No feeds yet', text: 'Import one with <code>waterfall import FILE</code> (or <code>PUT /v1/feeds/NAME</code>) and reload this page.' });
        return;
      }
      await selectFeed(name, { layout: wanted.feed === name ? wanted.layout || 'fit' : 'fit', view: state.view });
    } catch (error) {
      stopLive();
      failed(error);
      if (error.status === 401 && /expired/.test(error.message)) {
        showEmpty({ title: 'The API key expired', text: 'The key saved in this browser has expired. Ask for a new one (<code>waterfall key add</code>) and enter it with the key button.' });
      } else if (error.status === 401) {
        showEmpty({ title: 'An API key is needed', text: 'This server’s database has API keys. Enter one with the key button, or run <code>waterfall serve --public-read</code>.' });
      }
    }
  }

  ui.feed.addEventListener('change', () => {
    selectFeed(ui.feed.value, { layout: 'fit', view: state.view }).catch(failed);
  });
  ui.layout.addEventListener('change', () => {
    state.layout = ui.layout.value;
    showView();
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
  function setView(view) {
    const wasJustified = state.view === 'justified';
    state.view = view;
    if ((view === 'justified') !== wasJustified) state.layout = 'fit';
    renderViewSwitch();
    renderLayoutPicker();
    showView();
  }

  ui.keyButton.addEventListener('click', () => { if (ui.keyPanel.hidden) openKeyPanel(); else closeKeyPanel(); });
  ui.keyForm.addEventListener('submit', (event) => {
    event.preventDefault();
    try { localStorage.setItem(KEY_STORAGE, ui.keyInput.value.trim()); } catch { /* private mode */ }
    renderKeyButton();
    closeKeyPanel();
    boot();
  });
  ui.keyClear.addEventListener('click', () => {
    try { localStorage.removeItem(KEY_STORAGE); } catch { /* private mode */ }
    ui.keyInput.value = '';
    renderKeyButton();
    closeKeyPanel();
    boot();
  });
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !ui.keyPanel.hidden) { closeKeyPanel(); ui.keyButton.focus(); }
    if (event.key === 'Escape' && drag) endDrag(false);
  });
  document.addEventListener('pointerdown', (event) => {
    if (!ui.keyPanel.hidden && !ui.keyPanel.contains(event.target) && !ui.keyButton.contains(event.target)) closeKeyPanel();
  });

  window.addEventListener('scroll', onScroll, { passive: true });
  // Over content taller than the spacer, the wheel and the scrolling keys move content y by
  // their usual amounts (see the scroll mapping at the top); below the cap the browser scrolls.
  window.addEventListener('wheel', (event) => {
    if (event.defaultPrevented || event.ctrlKey || state.view === 'coverflow' || !scaledScroll() || lightbox.open) return;
    if (Math.abs(event.deltaX) > Math.abs(event.deltaY)) return;
    if (event.target.closest && event.target.closest('.popover, select')) return;
    const unit = event.deltaMode === 1 ? 40 : event.deltaMode === 2 ? pageAmount() : 1;
    event.preventDefault();
    scrollByContent(event.deltaY * unit);
  }, { passive: false });
  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (state.view === 'coverflow' || !scaledScroll() || lightbox.open) return;
    const target = event.target;
    if (target.closest && target.closest('input, select, textarea, [contenteditable], [role="slider"], [role="dialog"], .coverflow')) return;
    const onButton = target.closest && target.closest('button, a[href]');
    let dy = null;
    switch (event.key) {
      case 'ArrowDown': dy = 40; break;
      case 'ArrowUp': dy = -40; break;
      case 'PageDown': dy = pageAmount(); break;
      case 'PageUp': dy = -pageAmount(); break;
      case ' ': if (!onButton) dy = event.shiftKey ? -pageAmount() : pageAmount(); break;
      case 'Home': dy = -Infinity; break;
      case 'End': dy = Infinity; break;
      default: break;
    }
    if (dy === null) return;
    event.preventDefault();
    if (dy === -Infinity) scrollToContent(0);
    else if (dy === Infinity) scrollToContent(wf.contentHeight);
    else scrollByContent(dy);
  });
  // Capture: pointer events made by scripts reach these even when they do not bubble.
  ui.list.addEventListener('pointerdown', onPointerDown, { capture: true });
  window.addEventListener('pointermove', onPointerMove, { passive: true, capture: true });
  window.addEventListener('pointerup', onPointerUp, { capture: true });
  window.addEventListener('pointercancel', onPointerCancel, { capture: true });
  // While an image is dragged by touch, the finger must not scroll the page.
  document.addEventListener('touchmove', (event) => { if (drag) event.preventDefault(); }, { passive: false });
  ui.list.addEventListener('contextmenu', (event) => { if (drag || press) event.preventDefault(); });
  ui.list.addEventListener('dragstart', (event) => event.preventDefault());
  // A click on an image opens it large; the click that ends a drag does not.
  ui.list.addEventListener('click', (event) => {
    if (drag || performance.now() - lastDragEnd < 400 || !wf.answer) return;
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
  ui.list.addEventListener('keydown', (event) => { onListKeyDown(event).catch(failed); });
  ui.list.addEventListener('focusout', () => {
    // Redrawing may move the focused box in the page (and give it its focus back): only a
    // focus that really went elsewhere puts a picked-up image down.
    if (!grabbed) return;
    setTimeout(() => {
      const active = document.activeElement;
      if (grabbed && !(active && active.dataset && active.dataset.id === grabbed)) dropGrabbed(true);
    }, 0);
  });

  ui.scrubberTrack.addEventListener('pointerdown', onScrubberPointerDown);
  ui.scrubberTrack.addEventListener('pointermove', onScrubberPointerMove);
  ui.scrubberTrack.addEventListener('pointerup', onScrubberPointerUp);
  ui.scrubberTrack.addEventListener('pointercancel', onScrubberPointerUp);
  ui.scrubberTrack.addEventListener('lostpointercapture', onScrubberPointerUp);
  ui.scrubberTrack.addEventListener('keydown', onScrubberKeyDown);
  ui.scrubberTrack.addEventListener('focus', () => showScrubberLabel(0));
  ui.scrubberTrack.addEventListener('blur', () => { if (!scrub.dragging) ui.scrubber.classList.remove('active'); });
  ui.scrubber.addEventListener('pointerenter', () => showScrubberLabel(0));
  ui.scrubber.addEventListener('pointerleave', () => { if (!scrub.dragging && document.activeElement !== ui.scrubberTrack) showScrubberLabel(300); });

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

  // Back, forward or an edited address: follow the fragment (#feed=…&layout=…&view=…).
  window.addEventListener('hashchange', () => {
    const wanted = readHash();
    const view = ['waterfall', 'justified', 'coverflow'].includes(wanted.view) ? wanted.view : 'waterfall';
    const layout = wanted.layout || 'fit';
    if (wanted.feed && wanted.feed !== state.feed && state.feeds.some((f) => f.name === wanted.feed)) {
      ui.feed.value = wanted.feed;
      selectFeed(wanted.feed, { layout, view }).catch(failed);
    } else if (view !== state.view || layout !== state.layout) {
      state.view = view;
      state.layout = layout;
      renderViewSwitch();
      renderLayoutPicker();
      showView();
    }
  });

  let resizeTimer = 0;
  let lastSize = '';
  const resized = () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      stageSize();
      const size = `${wf.W}x${wf.H}`;
      if (size === lastSize) return;
      lastSize = size;
      if (!state.feed) return;
      if (state.view === 'coverflow') { startCover(); return; }
      renderLayoutPicker();
      const layout = currentLayout();
      if (layout.key !== wf.key) startWaterfall({ keepPosition: true });
      else { setContentHeight(wf.contentHeight); renderWaterfall(null); fetchViewport({ force: true }); }
    }, 120);
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
    get idle() { return inFlight === 0 && !wf.timer && !cf.timer && !wf.controller && !cf.controller; },
    /** Scrolls the waterfall so that content y `y` is at the top of the stage. */
    scrollToContentY(y) { scrollToContent(y); },
  });

  boot();
})();
