// What the gallery shows and where it reads it: a feed, one of its saved views, or a share link's scope (DESIGN section 20).

import { state } from './state.js';
import { enc } from './format.js';

/** The share link the page was opened on (`/s/{token}/gallery`): `{ base: '/s/{token}', layout }`
 *  (`layout` the one layout the link is limited to, which the server writes into the page's
 *  `waterfall-share-layout` meta tag, percent-encoded; null for a link to every layout), or null on the gallery's
 *  own page. Through a link the page is read-only: no drag, no key panel. */
export const LINK = (() => {
  const match = /^\/s\/([^/]+)\/gallery$/.exec(location.pathname);
  if (!match) return null;
  const meta = document.querySelector('meta[name="waterfall-share-layout"]');
  let layout = null;
  try { layout = meta && meta.content ? decodeURIComponent(meta.content) : null; } catch { /* not from this server */ }
  return Object.freeze({ base: `/s/${match[1]}`, layout });
})();

/** The path every read of what is shown starts with (no trailing slash). */
export function feedPath(feed = state.feed, savedView = state.savedView) {
  if (LINK) return LINK.base;
  const base = `/v1/feeds/${enc(feed)}`;
  return savedView ? `${base}/views/${enc(savedView)}` : base;
}

/** The revision an entity tag `"R-I-H"` (or `W/"R-I-H"`) names, or 0. */
export function revisionOfTag(tag) {
  const match = /^(?:W\/)?"(\d+)-/.exec(tag || '');
  return match ? Number(match[1]) : 0;
}
