// What a module tells the others without importing them: named events on one target, heard by the modules above it.

// The modules import one another downwards only (state and the API at the bottom, the views
// above them, gallery.js wiring them: .ci/check-gallery-imports fails on a cycle). When a lower
// module must tell a higher one something (the scroll moved, details or sections arrived, a
// render ended, a key is needed), it emits an event here; the higher module listens, from its
// wire…() function. Dispatch is synchronous: a listener runs before `emit` returns.
const target = new EventTarget();

/** Tells every listener of `name`, at once, with `detail`. */
export function emit(name, detail) {
  target.dispatchEvent(new CustomEvent(name, { detail }));
}

/** Calls `handler(detail)` on every `name` from now on. */
export function on(name, handler) {
  target.addEventListener(name, (event) => handler(event.detail));
}
