'use strict';
// The failures a suite's output names: mocha's epilogue ("  N) suite" / "       test:" / "" /
// "      Error: ..."), one line each with its error, and every line that says FAILED.
function failuresIn(text) {
  const lines = text.split('\n');
  const out = [];
  const from = lines.findIndex((l) => /^\s+\d+ failing/.test(l));
  for (let k = from < 0 ? lines.length : from + 1; k < lines.length && out.length < 20; k++) {
    const m = /^ {2}(\d+)\) (.*)$/.exec(lines[k]);
    if (!m) continue;
    let title = m[2];
    let j = k + 1;
    while (j < lines.length && lines[j].trim() !== '') title += ` > ${lines[j++].trim()}`;
    while (j < lines.length && lines[j].trim() === '') j++;
    out.push(`${m[1]}) ${title} ${(lines[j] || '').trim()}`);
    k = j;
  }
  for (const l of lines) if (/FAILED/.test(l) && out.length < 30) out.push(l.trim());
  return out.map((l) => `  ${l.slice(0, 400)}`);
}

module.exports = { failuresIn };
