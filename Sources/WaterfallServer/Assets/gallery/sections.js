// Section names: the feed's section titles and image counts (`…/sections`) and what a header says.

import { state } from './state.js';
import { ui } from './dom.js';
import { fmtInt } from './format.js';
import { apiGet } from './api.js';
import { emit } from './events.js';
import { feedPath } from './scope.js';

export function sectionKey(section) { return section === null || section === undefined ? '\u0000' : 's:' + section; }
// Section titles and image counts (`GET /v1/feeds/{feed}/sections`), by sectionKey.
export const sectionInfo = new Map();
/** A section's title when the feed gives one, else its id ("No section" for the unnamed one). */
export function sectionName(section) {
  const info = sectionInfo.get(sectionKey(section));
  if (info && info.title) return info.title;
  return section === null || section === undefined ? 'No section' : section;
}
const dateFormat = new Intl.DateTimeFormat('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
/** What a header says under its title: the id (when a title is shown) or the date an id like
 *  "2013-11-14" stands for, and the section's image count. */
export function sectionSubtitle(section) {
  const info = sectionInfo.get(sectionKey(section));
  const parts = [];
  if (info && info.title && section !== null && section !== undefined) parts.push(section);
  else if (typeof section === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(section)) {
    const date = new Date(section + 'T00:00:00Z');
    if (!Number.isNaN(date.getTime())) parts.push(dateFormat.format(date));
  }
  if (info && typeof info.images === 'number') parts.push(`${fmtInt.format(info.images)} image${info.images === 1 ? '' : 's'}`);
  return parts.join(' · ');
}

/** Reads the feed's section titles and counts (feeds with very many sections go without). */
export async function loadSections() {
  if (!state.summary || state.summary.sections > 20000) return;
  const path = feedPath();
  try {
    const { body } = await apiGet(`${path}/sections`);
    if (path !== feedPath()) return;
    sectionInfo.clear();
    for (const section of body.sections) sectionInfo.set(sectionKey(section.id), { title: section.title, images: section.images });
  } catch { return; }
  ui.position.dataset.text = '';
  emit('sections');
}
