// Checks shared by the tests of inexact scalar indexes (zone map, bloom filter, n-gram): our
// plan must use the index and recheck what it answers, and our rows must equal the scan without
// indexes and the expected rows.
import assert from 'node:assert/strict';
import { lanceOk } from './cli.mjs';

// The non-empty lines of `text`, sorted (row order is not part of a filter's answer).
export const sortedLines = (text) => text.split('\n').filter((l) => l).sort().join('\n');

// Our scan of `uri` with `filter`: planned through index `name` of `type` (as --explain spells
// it) with the recheck above it, FragmentScan of fragment 2 when `unindexed`, and rows equal to
// `--no-index`, to `want` (sorted lines) and to `count`.
export function checkRecheckedScan(uri, filter, name, type, want, { unindexed }) {
  const plan = lanceOk(['scan', uri, '--where', filter, '--explain']).stdout;
  assert.match(plan, new RegExp(`ScalarIndexLookup: .*@${name}\\(${type}\\)`), `${filter}:\n${plan}`);
  assert.match(plan, /Filter: [^\n]*\n\s*ScalarIndexLookup: [^\n]*rechecked by the filter above/,
    `${filter} is rechecked:\n${plan}`);
  if (unindexed) assert.match(plan, /FragmentScan: fragments \[2\]/, `${filter}:\n${plan}`);
  const ours = lanceOk(['scan', uri, '--where', filter]).stdout;
  assert.equal(ours, lanceOk(['scan', uri, '--where', filter, '--no-index']).stdout, `--no-index: ${filter}`);
  assert.equal(sortedLines(ours), want, filter);
  assert.equal(lanceOk(['count', uri, '--where', filter]).stdout.trim(), String(want ? want.split('\n').length : 0), filter);
}
