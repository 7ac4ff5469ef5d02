/**
 * "Did you mean ...?" for mistyped commands and options: the closest known name by
 * Damerau-Levenshtein distance (optimal string alignment: insert, delete, substitute, swap two
 * neighbours), or else the one name the typed text begins.
 */

/** Edits (insert, delete, substitute, transpose two adjacent characters) turning `a` into `b`. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate `typed` most likely meant: the nearest within 2 edits (and at most half the typed
 * length, so 'x' suggests nothing), the first listed on a tie; else the only candidate starting
 * with `typed` (2 characters or more). Case is ignored. Undefined when nothing is close.
 */
export function closest(typed: string, candidates: readonly string[]): string | undefined {
  const t = typed.toLowerCase();
  const limit = Math.min(2, Math.floor(t.length / 2));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const dist = editDistance(t, c.toLowerCase());
    if (dist <= limit && dist < bestDistance) [best, bestDistance] = [c, dist];
  }
  if (best !== undefined) return best;
  const prefixed = t.length >= 2 ? candidates.filter((c) => c.toLowerCase().startsWith(t)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** " (did you mean 'X'?)" for the closest candidate, or '' when none is close. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const c = closest(typed, candidates);
  return c === undefined ? '' : ` (did you mean '${c}'?)`;
}

/** "Unknown option '--x'", with the nearest of `optionNames` (given without dashes) when one is close. */
export function unknownOptionMessage(option: string, optionNames: readonly string[]): string {
  const hint = option.startsWith('--') ? didYouMean(option, optionNames.map((n) => `--${n}`)) : '';
  return `Unknown option '${option}'${hint}`;
}
