// The scrubber's dates: year and month labels along its track, and a jump to a month or a year through `locate?date=`.

import { state, wf } from './state.js';
import { ui } from './dom.js';
import { clamp, enc } from './format.js';
import { apiGet, isAbort } from './api.js';
import { announce, failed } from './messages.js';
import { currentLayout } from './layouts.js';
import { mappedTop, scrollToContent } from './scroll.js';
import { holdPlace } from './place.js';

// When the section index has dates (`firstTakenAt` / `lastTakenAt`), the scrubber widens and
// labels its track: a year where a year begins, a month where a month begins, in catalog order
// (newest first, as date sections are). A section's month is read from its id when the id is
// a date section's (`2013-11-14`, `2013-11`, `2013`: already in the feed's time zone, which the
// page is not told), else from its newest image's date in UTC. Labels that would overlap are
// left out, months before years. Clicking one jumps there; feeds without dates keep the plain
// scrubber, at its plain width.

const LABEL_HEIGHT = 13;  // px a label takes along the track
const monthName = new Intl.DateTimeFormat('en-US', { month: 'short', timeZone: 'UTC' });  // "Sep", not en-GB's "Sept"
const monthTitle = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
let jumping = null;       // the AbortController of a date jump under way

/** A dated section's year and month (month null for a year section); null when undated. */
function monthOf(entry) {
  if (!entry.lastTakenAt) return null;
  const id = typeof entry.section === 'string' ? /^(\d{4})(?:-(\d{2}))?(?:-\d{2})?$/.exec(entry.section) : null;
  if (id) return { year: +id[1], month: id[2] ? +id[2] : null };
  const date = new Date(entry.lastTakenAt);
  if (Number.isNaN(date.getTime())) return null;
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1 };
}

/** Where each year and month begins along the sections: [{ kind, year, month, y }]. */
function labelsOf(sections) {
  const labels = [];
  let year = null, month = null;
  for (const entry of sections) {
    const when = monthOf(entry);
    if (!when) continue;
    if (when.year !== year) {
      labels.push({ kind: 'year', year: when.year, month: null, y: entry.y });
      year = when.year;
      month = null;
    }
    if (when.month !== null && when.month !== month) {
      labels.push({ kind: 'month', year: when.year, month: when.month, y: entry.y });
      month = when.month;
    }
  }
  return labels;
}

/** The moment whose `locate?date=` lands where a month (or a year) begins in the feed. */
function jumpMoment(label) {
  // `locate?date=` answers the first image, in catalog order, taken at or before a moment, and
  // the catalog runs newest first: a month begins (in the feed) with its newest image, which is
  // the first one taken at or before the month's end. So the moment is the last minute of the
  // month's last day (the API takes minutes): its first day would find the month before's
  // newest image instead. (An image taken in the month's last 59 seconds is passed over: the
  // jump lands on the next one, still of that month when there is one.) A year: 31 December.
  const month = label.month === null ? 12 : label.month;
  const lastDay = new Date(Date.UTC(label.year, month, 0)).getUTCDate();
  const pad = (n) => String(n).padStart(2, '0');
  return `${String(label.year).padStart(4, '0')}-${pad(month)}-${pad(lastDay)}T23:59`;
}

/**
 * Draws the labels for `sections` (the scrubber's index) at their place along the track,
 * `fraction(y)` being the thumb's travel for content y. Returns whether the feed has dates.
 */
export function drawDates(sections, fraction) {
  const box = ui.scrubberDates;
  box.textContent = '';
  const labels = labelsOf(sections);
  const dated = labels.length > 0;
  ui.scrubber.classList.toggle('dated', dated);
  if (!dated) return false;
  const travel = Math.max(0, box.clientHeight - LABEL_HEIGHT);
  const taken = [];  // px of the labels placed
  const free = (px) => taken.every((other) => Math.abs(other - px) >= LABEL_HEIGHT);
  const placed = [];
  // Years first, then months (a month beginning with its year goes just below it).
  for (const kind of ['year', 'month']) {
    for (const label of labels) {
      if (label.kind !== kind) continue;
      let px = clamp(fraction(label.y), 0, 1) * travel;
      if (kind === 'month' && !free(px) && free(px + LABEL_HEIGHT) && px + LABEL_HEIGHT <= travel) px += LABEL_HEIGHT;
      if (!free(px)) continue;
      taken.push(px);
      placed.push({ label, px });
    }
  }
  placed.sort((a, b) => a.px - b.px);  // in the page in track order, as screen readers read them
  const fragment = document.createDocumentFragment();
  for (const { label, px } of placed) {
    const button = document.createElement('button');
    button.type = 'button';
    button.tabIndex = -1;  // the slider is the keyboard's way through the sections
    button.className = `scrubber-date ${label.kind}`;
    button.style.top = px.toFixed(1) + 'px';
    const date = new Date(Date.UTC(label.year, (label.month || 1) - 1, 1));
    button.textContent = label.month === null ? String(label.year) : monthName.format(date);
    const title = label.month === null ? String(label.year) : monthTitle.format(date);
    button.title = `Go to ${title}`;
    button.setAttribute('aria-label', `Go to ${title}`);
    button.dataset.date = jumpMoment(label);
    button.dataset.label = title;
    fragment.appendChild(button);
  }
  box.appendChild(fragment);
  return true;
}

/** Goes to the first image, in catalog order, taken at or before `moment` (`YYYY-MM-DD[THH:MM]`
 *  in the feed's time zone): its top just under the pinned header, as a deep link puts it. */
export async function jumpToDate(moment, title = moment) {
  if (jumping) jumping.abort();
  const controller = new AbortController();
  jumping = controller;
  const layout = currentLayout();
  const key = wf.key;
  try {
    const { body } = await apiGet(`${layout.base}locate?${layout.params}date=${enc(moment)}`, controller.signal);
    if (controller.signal.aborted || key !== wf.key) return;
    const header = wf.config && wf.config.headerHeight > 0 ? wf.config.headerHeight : 0;
    scrollToContent(body.frame.y - header);
    holdPlace(body.id, body.frame.y - mappedTop());
    announce(`${title}: image ${body.id}, ${body.index + 1} of ${state.summary?.images ?? '?'}.`);
  } catch (error) {
    if (!isAbort(error)) failed(error);
  } finally {
    if (jumping === controller) jumping = null;
  }
}

/** A click on a label jumps to its month or year. */
export function wireDates() {
  ui.scrubberDates.addEventListener('click', (event) => {
    const button = event.target.closest('.scrubber-date');
    if (!button) return;
    event.preventDefault();
    jumpToDate(button.dataset.date, button.dataset.label);
  });
}
