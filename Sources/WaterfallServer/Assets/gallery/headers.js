// Section headers and footers: headers pinned at the visible top as DESIGN section 2 says, footers in place.

import { KEEP_MARGIN, wf } from './state.js';
import { ui } from './dom.js';
import { FIELD_DEFAULTS } from './field-defaults.js';
import { sectionKey, sectionName, sectionSubtitle } from './sections.js';
import { on } from './events.js';

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
export function hasHeaders(config) {
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

export function renderHeaders(a, top) {
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

export function fillHeader(el) {
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

export function renderFooters(a, top) {
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

/** Section titles and counts that arrive (sections.js) are said in the headers and footers on the page. */
export function wireHeaders() {
  on('sections', () => {
    for (const el of wf.headerEls.values()) fillHeader(el);
    for (const el of wf.footerEls.values()) el.textContent = `End of ${sectionName(el.sectionId)}`;
  });
}
