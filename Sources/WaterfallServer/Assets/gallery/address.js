// The address fragment that keeps what is shown and the place: `#feed=F&in=SAVED&layout=L&view=V&id=ID`.

import { state } from './state.js';
import { LINK } from './scope.js';

/** What the address asks for: `#feed=F&in=SAVED&layout=L&view=V&id=ID` (each part optional; `in`
 *  a saved view of the feed, `view` how it is displayed), or a bare
 *  `#ID` (an image of the first feed). The offset of a place comes from the history entry,
 *  which a reload keeps, when it is about the same image. */
export function readHash() {
  const fragment = location.hash.slice(1);
  if (fragment && !fragment.includes('=')) {
    let id = fragment;
    try { id = decodeURIComponent(fragment); } catch { /* kept as written */ }
    return { feed: null, savedView: null, layout: null, view: null, id };
  }
  const params = new URLSearchParams(fragment);
  return {
    feed: params.get('feed'), savedView: params.get('in'), layout: params.get('layout'), view: params.get('view'),
    id: params.get('id'),
  };
}
/** Writes the choice and the place into the address (replacing the entry: scrolling makes no history). */
export function writeHash() {
  const params = new URLSearchParams();
  if (state.feed && !LINK) params.set('feed', state.feed);
  if (state.savedView && !LINK) params.set('in', state.savedView);
  if (state.layout && state.layout !== 'fit') params.set('layout', state.layout);
  if (state.view !== 'waterfall') params.set('view', state.view);
  const place = state.view === 'coverflow' ? null : state.place;
  if (place) params.set('id', place.id);
  const hash = params.toString();
  history.replaceState(place ? { place } : null, '', hash ? '#' + hash : location.pathname + location.search);
}
