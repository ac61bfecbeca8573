// The state the modules share: what is shown (feed, layout, view, revision) and the waterfall's answers.

export const state = {
  feeds: [],
  feed: null,           // name of the feed shown
  savedView: null,      // the saved view shown (its name), or null: the whole feed (scope.js)
  views: [],            // the feed's saved views: [{ name, rule, images, sections }]
  summary: null,        // what is shown, counted: { name, images, sections, revision }
  layouts: [],          // saved layouts of the feed: [{ name, configuration }]
  layout: 'fit',        // 'fit' or a saved layout's name
  view: 'waterfall',    // 'waterfall' | 'justified' | 'coverflow'
  justifiedInline: false, // whether inline viewport queries take kind=justified
  revision: 0,          // newest revision seen
  etag: null,           // ETag of the last viewport answer: If-Match of a move
  canWrite: true,       // whether the key (or no key) may move images (`GET /v1/access`)
  place: null,          // { id, offset }: the image at the top of the window (place.js), kept in the address
};

// The waterfall (and justified) view: its geometry, scroll mapping and the answers drawn.
export const wf = {
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
  restoring: null,      // the AbortController of a place being restored (place.js); no band queries meanwhile
  held: null,           // { key, top, place }: the place restored, while the scroll stays at `top`
  pendingFocus: null,
  flash: new Set(),
  dragged: null,        // the id of the image being dragged (drag.js), drawn by the drag, not the layout
  lastDragEnd: -Infinity, // when a drag (or a drop made by a script) last ended (drag.js)
};

export const KEEP_MARGIN = 240;  // px of boxes kept in the page beyond the visible band

// The cover flow (coverflow.js): its geometry, scroll mapping and the answers drawn.
export const cf = {
  key: '',
  answer: null,
  contentWidth: 0, spacerWidth: 0,
  V: 0, Hs: 0, itemHeight: 0, insetTop: 0, pad: 0,
  x: 0,
  override: null,     // { left, x }: an exact offset a snap scrolled to
  items: new Map(),   // id -> cover
  controller: null, timer: 0, firstScheduled: 0, snapTimer: 0, snapPending: false, centre: null,
};

// The lightbox (lightbox.js): whether it is open, on which image, and what opened it.
export const lightbox = { open: false, opener: null, openerId: null, index: -1, total: 0, token: 0 };
