// Small helpers: numbers for query strings and for people, clamping, a hue per id, aspect ratios.

export const enc = encodeURIComponent;
export const fmtInt = new Intl.NumberFormat('en-US');
/** A number for a query string: plain decimal, never exponent notation. */
export function num(value) {
  if (Number.isInteger(value)) return String(value);
  return value.toFixed(4).replace(/\.?0+$/, '');
}
export function clamp(value, low, high) { return Math.min(high, Math.max(low, value)); }
export function hashHue(text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); }
  return ((h >>> 0) % 360);
}
function gcd(a, b) { while (b) [a, b] = [b, a % b]; return a; }
const COMMON_RATIOS = [[1, 1], [5, 4], [4, 3], [3, 2], [16, 10], [16, 9], [2, 1], [21, 9], [3, 1]];
/** "4:3" for a width and height (the smallest ratio within 0.2%), "≈ 3:2" near a common photo
 *  ratio, else "1.37:1" (or "1:1.52" upright). */
export function ratioLabel(width, height) {
  if (!(width > 0 && height > 0)) return '';
  const r = width / height;
  for (let b = 1; b <= 21; b++) {
    const a = Math.round(r * b);
    if (a >= 1 && a <= 21 && Math.abs(a / b - r) / r < 0.002) { const g = gcd(a, b); return `${a / g}:${b / g}`; }
  }
  for (const [a, b] of COMMON_RATIOS) {
    if (Math.abs(a / b - r) / r < 0.025) return `≈ ${a}:${b}`;
    if (Math.abs(b / a - r) / r < 0.025) return `≈ ${b}:${a}`;
  }
  return r >= 1 ? `${r.toFixed(2)}:1` : `1:${(1 / r).toFixed(2)}`;
}
/** The ratio of an image's pixel size: exact when small ("4:3", "32:25"), else as above. */
export function pixelRatioLabel(width, height) {
  const g = gcd(width, height);
  if (width / g <= 32 && height / g <= 32) return `${width / g}:${height / g}`;
  return ratioLabel(width, height);
}
