// The HTTP API: GET and POST with the saved API key, problem details as errors, requests in flight.

import { LINK } from './scope.js';

export const KEY_STORAGE = 'waterfall.apiKey';

export class ApiError extends Error {
  constructor(status, detail) { super(detail); this.status = status; }
}
export function apiKey() { try { return localStorage.getItem(KEY_STORAGE) || ''; } catch { return ''; } }
export function apiHeaders(extra = {}) {
  const headers = { Accept: 'application/json', ...extra };
  // A share link's page reads what the link hands out, as anyone holding it would: no key.
  const key = LINK ? '' : apiKey();
  if (key) headers.Authorization = 'Bearer ' + key;
  return headers;
}
/** Requests under way (read elsewhere as a live binding; set only here). */
export let inFlight = 0;
function busy(delta) {
  inFlight += delta;
  document.documentElement.dataset.busy = inFlight > 0 ? 'true' : 'false';
}
export async function readProblem(response) {
  const text = await response.text().catch(() => '');
  try { const body = JSON.parse(text); if (body && body.detail) return body.detail; } catch { /* not a problem document */ }
  return `the server answered ${response.status} ${response.statusText}.`;
}
/** GET `path`: `{ body, etag }`, or an ApiError with the problem's detail. */
export async function apiGet(path, signal) {
  busy(1);
  try {
    const response = await fetch(path, { headers: apiHeaders(), signal });
    if (!response.ok) throw new ApiError(response.status, await readProblem(response));
    return { body: await response.json(), etag: response.headers.get('ETag') };
  } finally { busy(-1); }
}
export async function apiPost(path, payload, extra) {
  busy(1);
  try {
    const response = await fetch(path, {
      method: 'POST', body: JSON.stringify(payload),
      headers: apiHeaders({ 'Content-Type': 'application/json', ...extra }),
    });
    if (!response.ok) throw new ApiError(response.status, await readProblem(response));
    return await response.json();
  } finally { busy(-1); }
}
export const isAbort = (error) => error && error.name === 'AbortError';
