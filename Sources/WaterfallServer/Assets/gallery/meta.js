// What is shown, counted: the feed's, view's or link's images, sections and revision in the bar.

import { state } from './state.js';
import { ui } from './dom.js';
import { fmtInt } from './format.js';
import { apiGet } from './api.js';
import { feedPath, LINK, revisionOfTag } from './scope.js';

/** Notes a revision an answer showed: the bar says the newest seen. */
export function noteRevision(revision) {
  if (typeof revision === 'number' && revision > state.revision) {
    state.revision = revision;
    renderMeta();
  }
}

/** What a summary answer says, counted: a feed's (`GET /v1/feeds/{feed}`), a view's (its
 *  revision is its feed's, in the entity tag) or a share link's root, which is one of those. */
export function summaryOf(body, etag) {
  return {
    name: body.name, images: body.images, sections: body.sections,
    revision: typeof body.revision === 'number' ? body.revision : revisionOfTag(etag),
  };
}

export function renderMeta() {
  const feed = state.summary;
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

/** Reads the counts of what is shown again (the feed, the view, or the link's root). */
export async function refreshSummary() {
  const path = feedPath();
  try {
    const { body, etag } = await apiGet(path);
    if (path !== feedPath()) return;
    state.summary = summaryOf(body, etag);
    if (!LINK && !state.savedView) {
      const index = state.feeds.findIndex((f) => f.name === body.name);
      if (index >= 0) state.feeds[index] = body;
    }
    renderMeta();
  } catch { /* the next answer will say */ }
}
