// Which layout is shown: the "fit the window" configurations or a saved layout, and the query that asks for it.

import { state, wf } from './state.js';
import { clamp, enc } from './format.js';
import { FIELD_DEFAULTS } from './field-defaults.js';
import { feedPath } from './scope.js';

export const FIT_COLUMN = 240;      // "fit the window": one column per this many px
const FIT_HEADER = 44;              // header height of the "fit the window" layouts
export const FIT_ROW_HEIGHT = 220;  // row height of a "fit the window" justified layout

/** The effective configuration and the query that asks for it. */
export function currentLayout() {
  if (state.layout !== 'fit') {
    const saved = state.layouts.find((l) => l.name === state.layout);
    if (saved) {
      return {
        key: `${feedPath()}\u0000saved\u0000${saved.name}\u0000${JSON.stringify(saved.configuration)}`,
        config: saved.configuration,
        base: `${feedPath()}/layouts/${enc(saved.name)}/`,
        params: '',
      };
    }
  }
  const width = Math.max(120, wf.W);
  if (state.view === 'justified') {
    const params = `kind=justified&width=${width}&rowHeight=${FIT_ROW_HEIGHT}&headerHeight=${FIT_HEADER}&`;
    return {
      key: `${feedPath()}\u0000fit-justified\u0000${width}`,
      config: fitConfig(width, 0),
      base: `${feedPath()}/`, params,
    };
  }
  const columns = clamp(Math.floor(width / FIT_COLUMN), 1, 64);
  return {
    key: `${feedPath()}\u0000fit\u0000${columns}\u0000${width}`,
    config: fitConfig(width, columns),
    base: `${feedPath()}/`,
    params: `columns=${columns}&width=${width}&headerHeight=${FIT_HEADER}&`,
  };
}
/** A fit layout's whole configuration: the server's defaults (FIELD_DEFAULTS, which it
 * serves as field-defaults.js from its field tables) and what the fit sets. */
function fitConfig(width, columns) {
  return { ...FIELD_DEFAULTS, columns, width, headerHeight: FIT_HEADER };
}

export function layoutKind(layout) { return (layout.configuration && layout.configuration.kind) || 'waterfall'; }
