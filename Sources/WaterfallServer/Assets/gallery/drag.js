// Drag and drop: press an image, move it, release it before another image (touch: hold first).

import { state, wf } from './state.js';
import { ui } from './dom.js';
import { clamp } from './format.js';
import { FIELD_DEFAULTS } from './field-defaults.js';
import { announce } from './messages.js';
import { scaledScroll, scrollByContent } from './scroll.js';
import { requestRender } from './waterfall.js';
import { moveImage, queueMove } from './moves.js';
import { on } from './events.js';

// Others see only `wf.dragged` (the id dragged) and `wf.lastDragEnd`, set only here.
let press = null;                    // a pointer down on a tile, not yet a drag
let drag = null;                     // the drag under way

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
    if (other && event.pointerType !== 'touch') { wf.lastDragEnd = performance.now(); queueMove(() => moveImage(id, { before: other.dataset.id }, `before ${other.dataset.id}`)); return; }
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
  wf.lastDragEnd = Infinity;
  wf.dragged = id;
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

export function endDrag(commit) {
  if (!drag) return;
  const d = drag;
  if (commit) moveDrag();
  cancelAnimationFrame(d.raf);
  drag = null;
  wf.dragged = null;
  wf.lastDragEnd = performance.now();
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

/** The pointer handlers of the images list, and Escape, which cancels a drag. */
export function wireDrag() {
  // A render moves the boxes under the drag: its marker follows them.
  on('rendered', () => { if (drag) placeMarker(); });
  // Capture: pointer events made by scripts reach these even when they do not bubble.
  ui.list.addEventListener('pointerdown', onPointerDown, { capture: true });
  window.addEventListener('pointermove', onPointerMove, { passive: true, capture: true });
  window.addEventListener('pointerup', onPointerUp, { capture: true });
  window.addEventListener('pointercancel', onPointerCancel, { capture: true });
  // While an image is dragged by touch, the finger must not scroll the page.
  document.addEventListener('touchmove', (event) => { if (drag) event.preventDefault(); }, { passive: false });
  ui.list.addEventListener('contextmenu', (event) => { if (drag || press) event.preventDefault(); });
  ui.list.addEventListener('dragstart', (event) => event.preventDefault());
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && drag) endDrag(false);
  });
}
