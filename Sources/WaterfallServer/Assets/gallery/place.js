// The place in the feed: the image at the top of the window, kept across a reload, a layout change and a resize, and the #…&id= deep link.

import { cf, state, wf } from './state.js';
import { enc } from './format.js';
import { apiGet, isAbort } from './api.js';
import { failed, showNotice } from './messages.js';
import { currentLayout } from './layouts.js';
import { mappedTop, scrollToContent, setContentHeight } from './scroll.js';
import { writeHash } from './address.js';
import { DPR } from './images.js';

// A place is `{ id, offset }`: the image at the top of the window and how far its top is below
// the stage's top (negative when it is partly scrolled away). Positions differ from one layout
// to another, so a place is kept by image, never by y: after the change the page asks the
// anchored viewport (`viewport?anchor=ID&anchorY=OFFSET&height=H`), which says where the band
// that puts the image there starts and how tall the content now is, and scrolls there.
//
// The address keeps the place's id (`#feed=coco-val2017&id=139`, a deep link anyone can open)
// and the history entry's state keeps its offset, so that a reload comes back to the very
// pixel while a shared link puts the image just under the pinned section header.

const HASH_EVERY_MS = 400;  // the address follows the scroll at most this often
let hashTimer = 0;

/** The image at the top of the window: the first, in catalog order, that shows below the
 *  pinned header (what the position pill counts from); null at the very top of the feed. In
 *  the cover flow, the centre image (from the cover flow, it goes to the top of the window). */
export function topPlace() {
  if (state.view === 'coverflow') return cf.centre && cf.centre.index > 0 ? linkedPlace(cf.centre.id) : null;
  if (wf.restoring) return state.place;  // not there yet: the place on its way
  // Not scrolled since a place was restored: that place still, so that changes in turn (a
  // layout, then a resize) keep one image rather than drifting to the top image of each.
  const held = wf.held;
  if (held && held.key === wf.key && Math.abs(mappedTop() - held.top) < 0.5) return held.place;
  const a = wf.answer;
  if (!a || a.key !== wf.key) return null;
  const top = wf.top;
  if (top <= 0.5) return null;
  const line = top + headerHeight();
  let first = null;
  for (const item of a.items) {
    if (item.y + item.height > line && item.y < top + wf.H && (!first || item.index < first.index)) first = item;
  }
  return first ? { id: first.id, offset: first.y - top } : null;
}

/** Where a deep-linked image goes when no offset is known: its top just under the pinned header
 *  (offset null: the header height of the layout it is restored in). */
export function linkedPlace(id) { return { id, offset: null }; }

function headerHeight() { return wf.config && wf.config.headerHeight > 0 ? wf.config.headerHeight : 0; }

/** Notes the place as the page scrolls; the address (and the history entry) follows, throttled. */
export function notePlace() {
  if (hashTimer || wf.restoring) return;
  hashTimer = setTimeout(() => {
    hashTimer = 0;
    if (wf.restoring || state.view === 'coverflow') return;
    const place = topPlace();
    const same = place && state.place && place.id === state.place.id && Math.abs(place.offset - state.place.offset) < 0.5;
    if (same || (!place && !state.place)) return;
    state.place = place;
    writeHash();
  }, HASH_EVERY_MS);
}

/**
 * Puts the place's image at its offset below the stage's top in the layout now shown: the
 * anchored viewport says where (and the content's height), the page scrolls there and the
 * usual band query draws it. An image no longer in the feed (or a mistyped link) leaves the
 * page at the top with a notice. Calls `done` once the scroll position is set.
 */
export function restorePlace(place, done) {
  const layout = currentLayout();
  const key = wf.key;
  const controller = new AbortController();
  wf.restoring = controller;
  const offset = place.offset === null ? headerHeight() : place.offset;
  const path = `${layout.base}viewport?${layout.params}anchor=${enc(place.id)}&anchorY=${offset}&height=${Math.max(1, Math.round(wf.H))}&dpr=${DPR}`;
  const finish = (y) => {
    if (wf.restoring !== controller || key !== wf.key) return;
    scrollToContent(y);
    wf.restoring = null;
    state.place = y > 0 ? { id: place.id, offset } : null;
    wf.held = { key, top: mappedTop(), place: state.place };
    done();
  };
  apiGet(path, controller.signal).then(({ body }) => {
    if (controller.signal.aborted) return;
    setContentHeight(body.contentHeight);
    finish(body.y);
  }).catch((error) => {
    if (isAbort(error) || controller.signal.aborted) return;
    if (error.status === 404) showNotice(`Image ${place.id} is not in ${state.feed}; showing the top of the feed.`);
    else failed(error);
    finish(0);
    writeHash();
  });
}

/** Holds image `id` as the place, `offset` below the stage's top, where a jump has just put it
 *  (the address names it; later changes keep it until the page scrolls). */
export function holdPlace(id, offset) {
  state.place = { id, offset };
  wf.held = { key: wf.key, top: mappedTop(), place: state.place };
  writeHash();
}

/** Forgets a place being restored (a new feed or layout was chosen meanwhile). */
export function cancelRestore() {
  if (wf.restoring) wf.restoring.abort();
  wf.restoring = null;
}
