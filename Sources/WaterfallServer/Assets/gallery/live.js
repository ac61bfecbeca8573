// Live updates: the feed's event stream (fetch, so an API key can go along), shared by the page's tabs.

import { state, wf } from './state.js';
import { ui } from './dom.js';
import { ApiError, apiHeaders, readProblem } from './api.js';
import { loadSections } from './sections.js';
import { fetchViewport } from './waterfall.js';
import { fetchCover } from './coverflow.js';
import { refreshSummary } from './meta.js';
import { feedPath, LINK } from './scope.js';

// The events stream is read with fetch (not EventSource), so that an API key can go in the
// Authorization header. It reconnects with `since=` the newest revision seen. Tabs of this
// page share one stream per feed (a Web Lock elects the tab that reads it; it passes every
// event on over a BroadcastChannel): browsers give a server only six HTTP/1.1 connections,
// and six open galleries must not take them all.
//
// The badge says what is true: "Connecting…" until the stream's answer is open (its headers
// in, status 200), "Live" only while it is, "Offline — retrying" after it failed or ended
// (until a retry opens it again); a tab that shares another tab's stream shows that tab's.
// Streams are told apart by the path they are read under (feedPath: a feed, a view, a link).
const live = { controller: null, timer: 0, retry: 1000, feed: null, lock: null, leading: false, generation: 0, status: null };
const channel = 'BroadcastChannel' in window ? new BroadcastChannel('waterfall-gallery-events') : null;
const sharing = !!(channel && navigator.locks && navigator.locks.request);

function setLive(mode, text, title) {
  ui.live.dataset.state = mode;
  ui.live.querySelector('.live-text').textContent = text;
  ui.live.title = title || 'Live updates from the feed’s event stream';
}
function liveStatus(mode, text, title) {
  setLive(mode, text, title);
  live.status = { mode, text, title };
  if (sharing && live.leading) channel.postMessage({ kind: 'status', feed: live.feed, mode, text, title });
}

export function startLive() {
  stopLive();
  if (!state.feed) return;
  const feed = feedPath();
  const generation = ++live.generation;
  live.feed = feed;
  if (!sharing) { openStream(feed, generation); return; }
  const release = new AbortController();
  live.lock = release;
  setLive('connecting', 'Connecting…', 'Connecting to the feed’s event stream (or to the tab of this gallery that reads it)');
  // A tab that already reads this feed's stream says how it is.
  channel.postMessage({ kind: 'ask', feed });
  navigator.locks.request(`waterfall-gallery-events:${feed}`, { signal: release.signal }, () => {
    if (release.signal.aborted || generation !== live.generation) return null;
    live.leading = true;
    openStream(feed, generation);
    return new Promise((resolve) => release.signal.addEventListener('abort', resolve, { once: true }));
  }).catch(() => { /* released before it was granted */ });
}

function openStream(feed, generation) {
  const controller = new AbortController();
  live.controller = controller;
  if (!live.status || live.status.mode !== 'off') liveStatus('connecting', 'Connecting…', 'Connecting to the feed’s event stream');
  const path = `${feed}/events?since=${state.revision}`;
  (async () => {
    try {
      const response = await fetch(path, { headers: apiHeaders({ Accept: 'text/event-stream' }), signal: controller.signal, cache: 'no-store' });
      if (!response.ok || !response.body) {
        const detail = await readProblem(response);
        throw new ApiError(response.status, detail);
      }
      liveStatus('on', 'Live');
      live.retry = 1000;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      let event = { type: 'message', data: [] };
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          let line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (line.endsWith('\r')) line = line.slice(0, -1);
          if (line === '') {
            if (event.data.length) {
              const data = event.data.join('\n');
              if (sharing) channel.postMessage({ kind: 'event', feed, type: event.type, data });
              onLiveEvent(event.type, data);
            }
            event = { type: 'message', data: [] };
            continue;
          }
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          let data = colon < 0 ? '' : line.slice(colon + 1);
          if (data.startsWith(' ')) data = data.slice(1);
          if (field === 'event') event.type = data;
          else if (field === 'data') event.data.push(data);
        }
      }
      throw new Error('the event stream ended');
    } catch (error) {
      if (controller.signal.aborted || generation !== live.generation) return;
      // A share link removed or expired: the page starts again, and says so (gallery.js).
      if (LINK && error.status === 404) { linkGone(); return; }
      if (error.status === 401 || error.status === 403) {
        liveStatus('locked', 'No live updates', `Live updates refused: ${error.message}`);
        live.retry = 15000;
      } else {
        liveStatus('off', 'Offline — retrying', `The feed’s event stream is not open (${error.message}); trying again in ${Math.round(live.retry / 1000)} s`);
      }
      live.timer = setTimeout(() => { if (generation === live.generation) openStream(feed, generation); }, live.retry);
      live.retry = Math.min(live.retry * 2, 15000);
    }
  })();
}

/** The share link the page shows answers no more: the page starts again, which says so. */
function linkGone() {
  stopLive();
  location.reload();
}

export function stopLive() {
  live.generation++;
  clearTimeout(live.timer);
  if (live.controller) live.controller.abort();
  live.controller = null;
  if (live.lock) live.lock.abort();
  live.lock = null;
  live.leading = false;
  live.status = null;
  setLive('off', 'Offline', 'No feed’s event stream is open');
}

let liveRefreshTimer = 0;
function onLiveEvent(type, data) {
  if (type === 'reset' && LINK) {
    let reset = null;
    try { reset = JSON.parse(data); } catch { /* not one */ }
    if (reset && reset.reason === 'unshared') linkGone();
    return;
  }
  if (type !== 'change') return;
  let change;
  try { change = JSON.parse(data); } catch { return; }
  if (!change || typeof change.revision !== 'number' || change.revision <= state.revision) return;
  for (const c of change.changes || []) if (c.kind === 'move' || c.kind === 'insert') wf.flash.add(c.id);
  if (wf.flash.size > 200) wf.flash.clear();
  clearTimeout(liveRefreshTimer);
  liveRefreshTimer = setTimeout(() => {
    refreshSummary().then(loadSections);
    if (state.view === 'coverflow') fetchCover({ force: true });
    else fetchViewport({ flip: true, force: true });
  }, 30);
}

/** Events passed on by the tab that reads the stream; leaving the page closes it, coming back opens it. */
export function wireLive() {
  if (channel) {
    channel.addEventListener('message', (message) => {
      const m = message.data;
      if (m && m.kind === 'ask' && live.leading && m.feed === live.feed && live.status) {
        channel.postMessage({ kind: 'status', feed: live.feed, ...live.status });
        return;
      }
      if (!m || live.leading || m.feed !== feedPath() || !live.lock) return;
      if (m.kind === 'event') onLiveEvent(m.type, m.data);
      else if (m.kind === 'status') setLive(m.mode, m.text, m.title);
    });
  }
  // Leaving the page (or its going into the back-forward cache) closes the stream; coming back
  // opens it again.
  window.addEventListener('pagehide', () => stopLive());
  window.addEventListener('pageshow', (event) => { if (event.persisted && state.feed) startLive(); });
}
