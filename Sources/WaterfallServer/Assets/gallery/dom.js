// The page's elements, found once by id, and the visitor's reduced-motion preference.

const $ = (id) => document.getElementById(id);
export const ui = {
  bar: $('bar'), feed: $('feed'), layout: $('layout'), layoutField: $('layout-field'), view: $('view'),
  meta: $('meta'), live: $('live'), keyButton: $('key-button'), keyPanel: $('key-panel'), keyForm: $('key-form'),
  keyInput: $('key-input'), keyClear: $('key-clear'), keyText: $('key-text'),
  subset: $('subset'), subsetField: $('subset-field'), shareButton: $('share-button'), sharePanel: $('share-panel'),
  shareForm: $('share-form'), shareTitle: $('share-title'), shareLayout: $('share-layout'),
  shareLayoutRow: $('share-layout-row'), shareLayoutText: $('share-layout-text'), shareExpires: $('share-expires'),
  shareResult: $('share-result'), shareUrl: $('share-url'), shareCopy: $('share-copy'), shareMake: $('share-make'),
  stage: $('stage'), canvas: $('canvas'), list: $('list'), headers: $('headers'), marker: $('marker'),
  empty: $('empty'), position: $('position'), spacer: $('spacer'), notice: $('notice'), announcer: $('announcer'),
  main: $('main'), scrubber: $('scrubber'), scrubberTrack: $('scrubber-track'), scrubberTicks: $('scrubber-ticks'),
  scrubberThumb: $('scrubber-thumb'), scrubberLabel: $('scrubber-label'), scrubberDates: $('scrubber-dates'),
  lightbox: $('lightbox'), lightboxBackdrop: $('lightbox-backdrop'), lightboxFrame: $('lightbox-frame'),
  lightboxTitle: $('lightbox-title'), lightboxSub: $('lightbox-sub'), lightboxPrev: $('lightbox-prev'),
  lightboxNext: $('lightbox-next'), lightboxClose: $('lightbox-close'),
  coverflow: $('coverflow'), cfScroller: $('cf-scroller'), cfStage: $('cf-stage'), cfList: $('cf-list'),
  cfSpacer: $('cf-spacer'), cfCaption: $('cf-caption'),
};
export const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
