// The scroll mapping: a document never taller than browsers allow, mapped to content y of any height.

import { lightbox, state, wf } from './state.js';
import { ui } from './dom.js';
import { clamp } from './format.js';
import { emit } from './events.js';

// The document scrolls over a spacer of min(contentHeight, 8,000,000) px (browsers cap element
// heights near 16.7 million px, Firefox lower), and the scroll position maps linearly to content
// y, so that the last image of a million-image feed is reachable:
//
//   mappedTop = scrollY / (spacerHeight - viewportHeight) * (contentHeight - viewportHeight)
//
// (1:1 while the content fits under the cap). That mapping is for dragging the scroll bar, which
// must reach the very end; small relative scrolls (the wheel, arrow keys, Page Up/Down, Space)
// move content y by their usual amounts instead: they are taken over, and the page scrolls to
// the scroll position nearest the new content y with the mapping anchored there (an anchor
// holds while the scroll position stays where it put it).

export const MAX_SPACER = 8000000;  // px; under every browser's element height cap

export function setContentHeight(height) {
  if (height !== wf.contentHeight) wf.anchor = null;
  wf.contentHeight = height;
  wf.spacerHeight = Math.min(height, MAX_SPACER);
  const barHeight = Math.ceil(ui.bar.getBoundingClientRect().height);
  // The document's height: the spacer's, so that the largest scrollY is spacerHeight - H.
  ui.spacer.style.height = (Math.max(wf.spacerHeight, wf.H) + barHeight) + 'px';
  emit('content-height');
  const layoutWidth = wf.config ? wf.config.width : 0;
  ui.spacer.style.width = Math.max(1, Math.ceil(layoutWidth) > wf.W ? Math.ceil(layoutWidth) : 1) + 'px';
}
/** Content y at the top of the stage for the document's scroll position. */
export function mappedTop(scrollY = window.scrollY) {
  const C = wf.contentHeight, S = wf.spacerHeight, H = wf.H;
  if (!(C > H)) return 0;
  const anchor = wf.anchor;
  if (anchor && Math.abs(scrollY - anchor.scrollY) < 0.5) return clamp(anchor.top, 0, C - H);
  const y = Math.max(0, scrollY);
  if (S >= C) return Math.min(y, C - H);
  return Math.min(C - H, (y / (S - H)) * (C - H));
}
/** The scroll position whose mapped top is `contentY` (as near as the scroll grid allows). */
function scrollYFor(contentY) {
  const C = wf.contentHeight, S = wf.spacerHeight, H = wf.H;
  if (!(C > H)) return 0;
  const y = clamp(contentY, 0, C - H);
  if (S >= C) return y;
  return (y / (C - H)) * (S - H);
}
/** Whether scroll positions stand for more than one content px each (content over the cap). */
export function scaledScroll() { return wf.contentHeight > wf.spacerHeight && wf.spacerHeight > wf.H; }
/** Puts content y `contentY` at the stage's top, exactly: scrolls to the nearest scroll
 *  position and anchors the mapping there. Draws at once (the scroll position may not move). */
export function scrollToContent(contentY) {
  const y = clamp(contentY, 0, Math.max(0, wf.contentHeight - wf.H));
  wf.anchor = null;
  window.scrollTo(window.scrollX, scrollYFor(y));
  if (scaledScroll()) wf.anchor = { scrollY: window.scrollY, top: y };
  emit('scrolled');
}
/** Moves the content by `dy` px (a wheel notch, an arrow key, a page), whatever its height. */
export function scrollByContent(dy) {
  scrollToContent(mappedTop() + dy);
}
/** A page: what the browser's Page Down moves (7/8 of the scrolled window). */
function pageAmount() { return Math.max(40, Math.round(document.documentElement.clientHeight * 0.875)); }

/** Takes the wheel and the scrolling keys over where the content is taller than the spacer. */
export function wireScrolling() {
  // Over content taller than the spacer, the wheel and the scrolling keys move content y by
  // their usual amounts (see the mapping at the top of this module); below the cap the browser scrolls.
  window.addEventListener('wheel', (event) => {
    if (event.defaultPrevented || event.ctrlKey || state.view === 'coverflow' || !scaledScroll() || lightbox.open) return;
    if (Math.abs(event.deltaX) > Math.abs(event.deltaY)) return;
    if (event.target.closest && event.target.closest('.popover, select')) return;
    const unit = event.deltaMode === 1 ? 40 : event.deltaMode === 2 ? pageAmount() : 1;
    event.preventDefault();
    scrollByContent(event.deltaY * unit);
  }, { passive: false });
  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (state.view === 'coverflow' || !scaledScroll() || lightbox.open) return;
    const target = event.target;
    if (target.closest && target.closest('input, select, textarea, [contenteditable], [role="slider"], [role="dialog"], .coverflow')) return;
    const onButton = target.closest && target.closest('button, a[href]');
    let dy = null;
    switch (event.key) {
      case 'ArrowDown': dy = 40; break;
      case 'ArrowUp': dy = -40; break;
      case 'PageDown': dy = pageAmount(); break;
      case 'PageUp': dy = -pageAmount(); break;
      case ' ': if (!onButton) dy = event.shiftKey ? -pageAmount() : pageAmount(); break;
      case 'Home': dy = -Infinity; break;
      case 'End': dy = Infinity; break;
      default: break;
    }
    if (dy === null) return;
    event.preventDefault();
    if (dy === -Infinity) scrollToContent(0);
    else if (dy === Infinity) scrollToContent(wf.contentHeight);
    else scrollByContent(dy);
  });
}
