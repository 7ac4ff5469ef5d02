/** Small text helpers shared by the HTML and Markdown reports. */

/** Virtual milliseconds as seconds with millisecond precision: 5000 -> "5.000 s". */
export function formatMs(ms: number): string {
  return `${(ms / 1000).toFixed(3)} s`;
}

/** A duration in the unit that reads best: 850 -> "850 ms", 4000 -> "4 s", 90000 -> "90 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  return Number.isInteger(ms / 1000) ? `${ms / 1000} s` : `${(ms / 1000).toFixed(3)} s`;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Text safe inside a Markdown table cell. */
export function escapeMarkdownCell(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** 0x0fcf79bf…3623e style, for addresses and hashes in narrow places. */
export function shortHex(hex: string | null, keep = 6): string {
  if (!hex) return '-';
  return hex.length <= 2 + keep * 2 ? hex : `${hex.slice(0, 2 + keep)}…${hex.slice(-keep + 1)}`;
}
