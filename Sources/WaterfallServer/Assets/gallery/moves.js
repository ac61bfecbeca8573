// Saving moves: one at a time, each with If-Match, and a refusal (412) refreshed and said.

import { state, wf } from './state.js';
import { fmtInt } from './format.js';
import { apiPost } from './api.js';
import { announce, failed, showNotice } from './messages.js';
import { fetchViewport } from './waterfall.js';
import { fetchCover } from './coverflow.js';
import { noteRevision } from './meta.js';
import { feedPath } from './scope.js';

// Moves go one at a time: each is sent with the ETag of the answer read after the one before.
let moveChain = Promise.resolve();
export function queueMove(move) {
  moveChain = moveChain.then(move, move).catch(failed);
  return moveChain;
}

/**
 * Persists one move with If-Match (the ETag of the last viewport answer); 412: someone else
 * changed the feed since, so refetch and say so. The boxes then glide to their new places.
 */
export async function moveImage(id, where, description) {
  const tile = wf.tiles.get(id);
  if (tile) tile.el.classList.add('saving');
  // If-Match with the tag of the answer on screen; when this page's own last move is newer
  // than that answer (its refetch still under way), the revision that move answered.
  const tagged = state.etag && Number(state.etag.replace(/^W\//, '').slice(1).split('-')[0]);
  const headers = state.etag && tagged === state.revision ? { 'If-Match': state.etag }
    : state.revision > 0 ? { 'X-Feed-Revision': String(state.revision) } : {};
  try {
    const result = await apiPost(`${feedPath()}/reorder`, { moves: [{ id, ...where }] }, headers);
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
