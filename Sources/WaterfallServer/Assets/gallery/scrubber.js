// The section scrubber: a slider of the layout's sections beside the feed (drag, click, keys).

import { state, wf } from './state.js';
import { ui } from './dom.js';
import { clamp, fmtInt } from './format.js';
import { apiGet, isAbort } from './api.js';
import { sectionName } from './sections.js';
import { currentLayout } from './layouts.js';
import { mappedTop, scrollToContent } from './scroll.js';
import { drawDates, wireDates } from './timeline.js';
import { feedPath } from './scope.js';
import { on } from './events.js';

// The layout's section index (`…/layouts/{name}/sections`, or `…/section-index` of an inline
// layout) drawn as a slider beside the feed: its value is the section (1 to the count), its
// thumb sits where the scroll position is, and moving it (drag, click, keys) puts the top of
// the chosen section at the top of the stage. End goes to the very end of the content, so
// that the last images show.
export const scrub = {
  key: '',              // wf.key of the index in hand
  sections: [],         // [{ section, title, index, count, y, height }]
  revision: -1,
  controller: null, timer: 0,
  chosen: null,         // { ordinal, top }: the section chosen here, while the feed stays at top
  dragging: false, pointerId: null, shown: -1,
  labelTimer: 0,
  onWidthChange: () => {},  // called when the date labels change the scrubber's width
};

/** Whether the scrubber has room beside the feed: waterfall and justified views of feeds of
 *  two sections or more (known from the feed's summary before the first answer). */
function scrubberWanted() {
  if (state.view === 'coverflow') return false;
  return !!state.summary && state.summary.sections >= 2;
}
export function placeScrubber() {
  const wanted = scrubberWanted();
  document.body.classList.toggle('has-scrubber', wanted);
  ui.scrubber.hidden = !wanted;
}

function scrubberPath() {
  const layout = currentLayout();
  if (layout.params === '') return `${layout.base}sections`;
  return `${feedPath()}/section-index?${layout.params.replace(/&$/, '')}`;
}

/** Reads the section index for the layout shown, again when the revision moved on. */
export function loadSectionIndex({ force = false } = {}) {
  clearTimeout(scrub.timer);
  scrub.timer = 0;
  if (!state.feed || state.view === 'coverflow' || !scrubberWanted()) return;
  const key = wf.key;
  if (!force && scrub.key === key && scrub.revision >= state.revision) return;
  if (scrub.controller) scrub.controller.abort();
  const controller = new AbortController();
  scrub.controller = controller;
  apiGet(scrubberPath(), controller.signal).then(({ body }) => {
    if (controller.signal.aborted || key !== wf.key) return;
    scrub.controller = null;
    scrub.key = key;
    scrub.revision = body.revision;
    scrub.sections = body.sections;
    scrub.chosen = null;
    scrub.shown = -1;
    drawTicks();
    renderScrubber();
  }).catch((error) => {
    if (scrub.controller === controller) scrub.controller = null;
    if (!isAbort(error)) scrub.sections = [];
  });
}
export function scheduleSectionIndex() {
  clearTimeout(scrub.timer);
  scrub.timer = setTimeout(() => loadSectionIndex(), 250);
}

function scrubberTitle(entry) {
  if (!entry) return '';
  return entry.title || sectionName(entry.section);
}
/** The thumb's travel: [0, 1] along the track for a content top. */
function scrubberFraction(top) {
  const range = wf.contentHeight - wf.H;
  return range > 0 ? clamp(top / range, 0, 1) : 0;
}
/** The ordinal (1…) of the section under content y `y`: the last one beginning at or above it. */
function sectionOrdinalAt(y) {
  const sections = scrub.sections;
  let low = 0, high = sections.length - 1, found = 0;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (sections[mid].y <= y + 0.5) { found = mid; low = mid + 1; } else high = mid - 1;
  }
  // Several sections may begin at one y (empty ones): the last of them holds what shows.
  return found + 1;
}
function currentOrdinal() {
  const top = mappedTop();
  if (scrub.chosen && Math.abs(scrub.chosen.top - top) < 0.5) return scrub.chosen.ordinal;
  scrub.chosen = null;
  return sectionOrdinalAt(top);
}

/** Draws a tick where each section begins, and the date labels (timeline.js) when it has dates. */
export function drawTicks() {
  ui.scrubberTicks.textContent = '';
  const sections = scrub.sections;
  const dated = drawDates(sections, scrubberFraction);
  if (dated !== document.body.classList.contains('has-dates')) {
    // The labels widen the scrubber, so the stage narrows (or widens back): lay out again,
    // once the caller (an answer being applied, a place being restored) has finished.
    document.body.classList.toggle('has-dates', dated);
    setTimeout(scrub.onWidthChange, 0);
  }
  if (sections.length > 400) return;
  const fragment = document.createDocumentFragment();
  for (const entry of sections) {
    const tick = document.createElement('span');
    tick.className = 'scrubber-tick';
    tick.style.top = (scrubberFraction(entry.y) * 100) + '%';
    fragment.appendChild(tick);
  }
  ui.scrubberTicks.appendChild(fragment);
}

/** Follows the scroll: the thumb where the content top is, the value the section there. */
export function renderScrubber() {
  if (ui.scrubber.hidden || !scrub.sections.length || scrub.key !== wf.key) return;
  const track = ui.scrubberTrack;
  const fraction = scrubberFraction(mappedTop());
  ui.scrubberThumb.style.top = `calc(${(fraction * 100).toFixed(4)}% - ${(fraction * ui.scrubberThumb.offsetHeight).toFixed(2)}px)`;
  const ordinal = currentOrdinal();
  if (ordinal === scrub.shown) return;
  scrub.shown = ordinal;
  const entry = scrub.sections[ordinal - 1];
  track.setAttribute('aria-valuemax', String(scrub.sections.length));
  track.setAttribute('aria-valuenow', String(ordinal));
  track.setAttribute('aria-valuetext', scrubberTitle(entry));
  ui.scrubber.dataset.section = entry.section === null ? '' : entry.section;
  renderScrubberLabel(entry, ordinal);
}
function renderScrubberLabel(entry, ordinal) {
  ui.scrubberLabel.textContent = '';
  const title = document.createElement('strong');
  title.textContent = scrubberTitle(entry);
  const sub = document.createElement('span');
  sub.textContent = `${fmtInt.format(entry.count)} image${entry.count === 1 ? '' : 's'} · section ${fmtInt.format(ordinal)} of ${fmtInt.format(scrub.sections.length)}`;
  ui.scrubberLabel.append(title, sub);
  const fraction = scrubberFraction(mappedTop());
  ui.scrubberLabel.style.top = `calc(${(fraction * 100).toFixed(4)}% + ${((0.5 - fraction) * 60).toFixed(2)}px)`;
}
function showScrubberLabel(ms) {
  ui.scrubber.classList.add('active');
  clearTimeout(scrub.labelTimer);
  if (ms) scrub.labelTimer = setTimeout(() => { if (!scrub.dragging) ui.scrubber.classList.remove('active'); }, ms);
}

/** Goes to section `ordinal` (1…): its top at the stage's top (as near as the end allows);
 *  `toEnd` goes to the very end of the content instead (End: the last images). */
function goToSection(ordinal, { toEnd = false } = {}) {
  const sections = scrub.sections;
  if (!sections.length) return;
  ordinal = clamp(ordinal, 1, sections.length);
  const entry = sections[ordinal - 1];
  const end = Math.max(0, wf.contentHeight - wf.H);
  const top = toEnd ? end : clamp(entry.y, 0, end);
  scrollToContent(top);
  scrub.chosen = { ordinal, top: mappedTop() };
  scrub.shown = -1;
  renderScrubber();
}

function onScrubberKeyDown(event) {
  if (!scrub.sections.length || event.altKey || event.ctrlKey || event.metaKey) return;
  const now = currentOrdinal();
  const last = scrub.sections.length;
  const steps = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1, PageDown: 10, PageUp: -10 };
  if (event.key in steps) goToSection(now + steps[event.key]);
  else if (event.key === 'Home') goToSection(1);
  else if (event.key === 'End') goToSection(last, { toEnd: true });
  else return;
  event.preventDefault();
  showScrubberLabel(1400);
}

/** The section under a pointer on the track (the thumb's travel maps to the content's). */
function scrubTo(clientY) {
  const rect = ui.scrubberTrack.getBoundingClientRect();
  const thumb = ui.scrubberThumb.offsetHeight;
  const fraction = clamp((clientY - rect.top - thumb / 2) / Math.max(1, rect.height - thumb), 0, 1);
  if (fraction >= 0.999) { goToSection(scrub.sections.length, { toEnd: true }); return; }
  goToSection(sectionOrdinalAt(fraction * Math.max(0, wf.contentHeight - wf.H)));
}
function onScrubberPointerDown(event) {
  if (event.button !== 0 || !scrub.sections.length) return;
  event.preventDefault();
  ui.scrubberTrack.focus({ preventScroll: true });
  scrub.dragging = true;
  scrub.pointerId = event.pointerId;
  try { ui.scrubberTrack.setPointerCapture(event.pointerId); } catch { /* a pointer made by a script */ }
  ui.scrubber.classList.add('dragging');
  showScrubberLabel(0);
  scrubTo(event.clientY);
}
function onScrubberPointerMove(event) {
  if (!scrub.dragging || event.pointerId !== scrub.pointerId) return;
  scrubTo(event.clientY);
}
function onScrubberPointerUp(event) {
  if (!scrub.dragging || event.pointerId !== scrub.pointerId) return;
  scrub.dragging = false;
  ui.scrubber.classList.remove('dragging');
  showScrubberLabel(900);
}

/** The scrubber's pointer, keyboard and hover handlers; `onWidthChange` lays the view out
 *  again when date labels widen the scrubber (or a feed without dates narrows it back). */
export function wireScrubber(onWidthChange) {
  // A new content height moves the ticks.
  on('content-height', () => { if (scrub.key === wf.key) drawTicks(); });
  scrub.onWidthChange = onWidthChange;
  wireDates();
  ui.scrubberTrack.addEventListener('pointerdown', onScrubberPointerDown);
  ui.scrubberTrack.addEventListener('pointermove', onScrubberPointerMove);
  ui.scrubberTrack.addEventListener('pointerup', onScrubberPointerUp);
  ui.scrubberTrack.addEventListener('pointercancel', onScrubberPointerUp);
  ui.scrubberTrack.addEventListener('lostpointercapture', onScrubberPointerUp);
  ui.scrubberTrack.addEventListener('keydown', onScrubberKeyDown);
  ui.scrubberTrack.addEventListener('focus', () => showScrubberLabel(0));
  ui.scrubberTrack.addEventListener('blur', () => { if (!scrub.dragging) ui.scrubber.classList.remove('active'); });
  ui.scrubber.addEventListener('pointerenter', () => showScrubberLabel(0));
  ui.scrubber.addEventListener('pointerleave', () => { if (!scrub.dragging && document.activeElement !== ui.scrubberTrack) showScrubberLabel(300); });
}
