// Comparing full-text search results with lance 12's where scores are sums of several BM25
// terms: lance 12 adds them in the order its cursors (or its hash joins) happen to give, which
// ours does not reproduce, so with three or more terms the float32 sums may differ in the last
// bits. Scores are equal within 1e-6 relative; everything else (the rows, every column, the
// order wherever scores differ by more) exactly. Rows are {id, ...columns, _score}.
import assert from 'node:assert/strict';

export const close = (a, b) => Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b));

// Every match: the same rows, columns and scores; ours best first with ties by id, and lance
// 12's order the same wherever the scores differ.
export function assertSameRows(got, want, what) {
  assert.equal(got.length, want.length, `${what}: row count`);
  const theirs = new Map(want.map((r) => [r.id, r]));
  for (let i = 0; i < got.length; i++) {
    const w = theirs.get(got[i].id);
    assert.ok(w, `${what}: row ${got[i].id} is not lance 12's`);
    assert.deepEqual({ ...got[i], _score: 0 }, { ...w, _score: 0 }, `${what}: row ${got[i].id}`);
    assert.ok(close(got[i]._score, w._score), `${what}: row ${got[i].id} score ${got[i]._score} vs ${w._score}`);
    if (i > 0) {
      const prev = got[i - 1];
      assert.ok(prev._score > got[i]._score || (prev._score === got[i]._score && prev.id < got[i].id),
        `${what}: best first, ties by id (${prev.id}, ${got[i].id})`);
      assert.ok(theirs.get(prev.id)._score >= w._score || close(theirs.get(prev.id)._score, w._score),
        `${what}: lance 12 orders ${prev.id} and ${got[i].id} the same way`);
    }
  }
}

// Top k: ours the head of our every-match list; the scores equal lance 12's position by
// position, and the rows above the last score the same (the last score's rows are a tie).
export function assertTopK(got, want, all, k, what) {
  assert.equal(got.length, Math.min(k, all.length), `${what}: row count`);
  assert.deepEqual(got, all.slice(0, got.length), `${what}: ours is the head of every match`);
  assert.equal(want.length, got.length, `${what}: lance 12's row count`);
  for (let i = 0; i < got.length; i++) assert.ok(close(got[i]._score, want[i]._score), `${what}: score ${i}`);
  if (got.length === 0) return;
  const last = got[got.length - 1]._score;
  const above = (rows) => rows.filter((r) => r._score > last && !close(r._score, last)).map((r) => r.id).sort((a, b) => a - b);
  assert.deepEqual(above(want), above(got), `${what}: rows above the last score`);
}
