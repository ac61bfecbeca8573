// The images list by keyboard: arrows go from image to image, Alt+arrows or Space and arrows move one.

import { state, wf } from './state.js';
import { ui } from './dom.js';
import { fmtInt } from './format.js';
import { apiGet } from './api.js';
import { announce, failed } from './messages.js';
import { sectionName } from './sections.js';
import { currentLayout } from './layouts.js';
import { scrollToContent } from './scroll.js';
import { fetchViewport } from './waterfall.js';
import { endDrag } from './drag.js';
import { moveImage, queueMove } from './moves.js';
import { openLightbox } from './lightbox.js';
import { on } from './events.js';

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
  if (wf.dragged !== null) { if (key === 'Escape') { event.preventDefault(); endDrag(false); } return; }
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

export function dropGrabbed(say) {
  if (!grabbed) return;
  const tile = wf.tiles.get(grabbed);
  if (tile) { tile.el.classList.remove('grabbed'); tile.el.removeAttribute('aria-pressed'); }
  if (say) announce(`Put down image ${grabbed}.`);
  grabbed = null;
}

/** The list's keys, and a picked-up image put down when the focus leaves it. */
export function wireKeyboard() {
  // An image opened large drops the one picked up.
  on('lightbox-opening', () => dropGrabbed(false));
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
}
