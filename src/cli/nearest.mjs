// Plain JavaScript: usage.mjs suggests a command from it before tsx loads; the commands' option
// parser (commands.ts) suggests an option.

/**
 * Edit distance: insertions, deletions, substitutions and swaps of two neighbours (`--ogr`), each
 * costing one (the optimal string alignment distance).
 */
function editDistance(a, b) {
  const rows = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      let cost = Math.min(
        rows[i - 1][j] + 1,
        row[j - 1] + 1,
        rows[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        cost = Math.min(cost, rows[i - 2][j - 2] + 1);
      row.push(cost);
    }
    rows.push(row);
  }
  return rows[a.length][b.length];
}

/**
 * The known word a mistyped one most likely meant, or null when none is close: one that starts
 * with what was typed, or that it starts with (`--password` for `--password-stdin`, `--jsonn` for
 * `--json`), else the nearest within a third of its length (at least one edit, at most three), so
 * `--org` is never offered for `--bogus`.
 * @param {string} typed
 * @param {readonly string[]} known
 * @returns {string | null}
 */
export function nearest(typed, known) {
  const word = typed.toLowerCase();
  const bare = (name) => name.replace(/^-+/, '');
  // A prefix counts only past the dashes: `--` alone is the start of every option.
  const prefixed = known.filter(
    (name) => bare(word).length >= 2 && (name.startsWith(word) || word.startsWith(name)),
  );
  if (prefixed.length > 0)
    return prefixed.reduce((best, name) =>
      Math.abs(name.length - word.length) < Math.abs(best.length - word.length) ? name : best,
    );
  let best = null;
  let bestDistance = Math.min(3, Math.max(1, Math.floor(bare(word).length / 3)));
  for (const name of known) {
    const distance = editDistance(word, name);
    if (distance <= bestDistance && (best === null || distance < bestDistance)) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}
