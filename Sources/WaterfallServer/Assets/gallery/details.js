// Image details: titles and pixel sizes of the images on screen, read with one images query per band.

import { cf, state, wf } from './state.js';
import { pixelRatioLabel } from './format.js';
import { apiGet } from './api.js';
import { emit } from './events.js';
import { feedPath } from './scope.js';

// Viewport answers carry frames, not pixel sizes or titles: those come from the images list
// of the index range on screen, once per image, after the boxes are drawn.
export const details = new Map(); // id -> { width, height, title }
const detailState = { busy: false, timer: 0 };
export function scheduleDetails() {
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
  const feed = feedPath();
  detailState.busy = true;
  let added = 0;
  try {
    const { body } = await apiGet(`${feed}/images?offset=${low}&limit=${high - low + 1}`);
    if (feed !== feedPath()) return;
    if (details.size > 50000) details.clear();
    for (const image of body.images) {
      if (!details.has(image.id)) added++;
      details.set(image.id, { width: image.width, height: image.height, title: image.title });
    }
  } catch { return; } finally { detailState.busy = false; }
  for (const holder of wf.tiles.values()) applyDetails(holder);
  for (const holder of cf.items.values()) applyDetails(holder);
  emit('details');
  if (added) scheduleDetails();
}
export function applyDetails(holder) {
  const d = details.get(holder.id);
  if (!d || holder.detailed) return;
  holder.detailed = true;
  holder.ratio.textContent = pixelRatioLabel(d.width, d.height);
  holder.el.title = `${d.title ? d.title + ' · ' : ''}${holder.id} · ${d.width} × ${d.height}`;
  if (holder.caption && d.title) holder.caption.firstChild.textContent = d.title;
}
