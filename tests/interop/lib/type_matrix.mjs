// The "every type" tables of the table interop matrix (table_types_roundtrip, table_ops_matrix):
// an int64 key `id` followed by every column of gen.mjs that lance 12 accepts in a table —
// nullable and non-null variants (`*_nn`), dictionaries, large_utf8 / large_binary — and a
// model of a dataset (rows by id) that the operations under test are applied to.
//
// Left out because lance 12 cannot store them (probed with @lancedb/lancedb 0.39):
// timestamps with an offset time zone (`+05:30`: it panics) and fixed_size_list<utf8> (it
// panics). NaN inside fixed_size_list<float32> is refused by lance 12's writer ("vector column
// contains NaN"), so tables the reference writes use `noNaN`. apache-arrow 18 cannot express
// large_list, so the JS peer cannot compare it.
import * as A from 'apache-arrow';

import { expectedRows, Float, Obj } from './canonical.mjs';
import { dictionaryColumns, makeTable, nonNullColumn, toIPC, typeColumns } from './gen.mjs';

const REFERENCE_CANNOT_STORE = new Set(['timestamp_ms_offset', 'fixed_size_list_utf8']);

// { cols, dicts }: every column (values cycle through gen.mjs's 12 interesting values).
export function matrixColumns() {
  const { cols: dcols, dicts } = dictionaryColumns();
  const base = [...typeColumns().filter((c) => !REFERENCE_CANNOT_STORE.has(c.name)), ...dcols];
  return { cols: [...base, ...base.filter((c) => !c.noNonNull).map(nonNullColumn)], dicts };
}

const withoutNaN = (v) => (Array.isArray(v) ? v.map((x) => (Number.isNaN(x) ? 0 : x)) : v);

// Rows with ids [start, start + n) (or the given `ids`), every type; `shift` moves every value
// but the id (an "update"). `shape` follows a schema evolution:
//   drop: [names], rename: {old: new}, retype: {name: {type, map}} (values mapped),
//   extra: [{name, type, nullable, value(id)}] appended after the catalogue columns.
// `noNaN`: NaN items of float vectors replaced by 0 (rows the reference writes).
export function matrixTable({ start = 0, n = 0, ids, shift = 0, noNaN = false, shape = {}, batches } = {}) {
  const keys = ids ?? Array.from({ length: n }, (_, i) => start + i);
  const { cols, dicts } = matrixColumns();
  const out = [{ name: 'id', type: new A.Int64(), nullable: false, values: keys.map(BigInt) }];
  for (const c of cols) {
    if ((shape.drop ?? []).includes(c.name)) continue;
    const k = c.values.length;
    const fix = noNaN && c.name.startsWith('fixed_size_list_float32') ? withoutNaN : (v) => v;
    let values = keys.map((id) => fix(c.values[(Number(id) * 7 + shift) % k]));
    let type = c.type;
    const re = (shape.retype ?? {})[c.name];
    if (re) {
      type = re.type;
      values = values.map((v) => (v === null ? null : re.map(v)));
    }
    out.push({ ...c, name: (shape.rename ?? {})[c.name] ?? c.name, type, values });
  }
  for (const e of shape.extra ?? []) {
    out.push({ name: e.name, type: e.type, nullable: e.nullable ?? true, values: keys.map((id) => e.value(Number(id))) });
  }
  return makeTable(out, batches ?? [keys.length], { dicts });
}

export const ipcBytes = (table, format = 'stream') => Buffer.from(toIPC(table, format));

export const idOf = (row) => row.entries[0][1];
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
export const byId = (a, b) => cmp(idOf(a), idOf(b));

// Output lines of `lance scan` sorted by their leading "id".
export function linesById(text) {
  const key = (l) => BigInt(/^\{"id":(-?\d+)/.exec(l)[1]);
  return text.split('\n').filter((l) => l).sort((x, y) => cmp(key(x), key(y))).map((l) => l + '\n').join('');
}

// A dataset's rows by id, changed the way each operation changes them.
export class Model {
  constructor() { this.rows = new Map(); }

  clone() {
    const m = new Model();
    for (const [id, r] of this.rows) m.rows.set(id, new Obj(r.entries.map(([k, v]) => [k, v])));
    return m;
  }

  // Merge-insert semantics: rows of `table` whose id exists replace it when `update`; the
  // others are added when `insert`; with `deleteBySource`, rows whose id is not in `table`
  // and for which deleteBySource(id) holds go. `when(id)` limits which matches update.
  merge(table, { update = true, insert = true, when = () => true, deleteBySource } = {}) {
    const incoming = new Map(expectedRows(table).map((r) => [idOf(r), r]));
    let updated = 0;
    let inserted = 0;
    let deleted = 0;
    for (const [id, r] of incoming) {
      if (this.rows.has(id)) {
        if (update && when(id)) { this.rows.set(id, r); updated++; }
      } else if (insert) {
        this.rows.set(id, r);
        inserted++;
      }
    }
    if (deleteBySource) {
      for (const id of [...this.rows.keys()]) {
        if (!incoming.has(id) && deleteBySource(id)) { this.rows.delete(id); deleted++; }
      }
    }
    return { updated, inserted, deleted };
  }

  append(table) { return this.merge(table, { update: false }); }

  deleteWhere(pred) {
    let n = 0;
    for (const id of [...this.rows.keys()]) if (pred(id)) { this.rows.delete(id); n++; }
    return n;
  }

  // fn(row entries as a Map, id) -> Map of the new entries (in order).
  mapRows(fn, which = () => true) {
    let n = 0;
    for (const [id, r] of this.rows) {
      if (!which(id)) continue;
      this.rows.set(id, new Obj([...fn(new Map(r.entries), id)]));
      n++;
    }
    return n;
  }

  set(values, which) {
    return this.mapRows((m) => {
      for (const [k, f] of Object.entries(values)) m.set(k, f(m.get(k)));
      return m;
    }, which);
  }

  addColumn(name, value) { this.mapRows((m, id) => m.set(name, value(Number(id)))); }

  drop(names) { this.mapRows((m) => { for (const k of names) m.delete(k); return m; }); }

  rename(from, to) {
    this.mapRows((m) => new Map([...m].map(([k, v]) => [k === from ? to : k, v])));
  }

  sorted() { return [...this.rows.values()].sort(byId); }
}

// Value helpers for the model's update expressions.
export const times2 = (v) => (v === null ? null : new Float(v.value * 2, v.bits));
