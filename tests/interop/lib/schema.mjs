// A complete, comparable description of an apache-arrow Schema: names, types with all their
// parameters, nullability, and schema / field metadata. Dictionary ids are left out (a
// writer may renumber them); everything else must survive a round trip.
import * as A from 'apache-arrow';

const T = A.Type;

function metadataText(m) {
  if (!m || m.size === 0) return '';
  const entries = [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return ` meta${JSON.stringify(entries)}`;
}

export function describeType(t) {
  switch (t.typeId) {
    case T.Null: return 'null';
    case T.Bool: return 'bool';
    case T.Int: return `${t.isSigned ? 'int' : 'uint'}${t.bitWidth}`;
    case T.Float: return `float${[16, 32, 64][t.precision]}`;
    case T.Utf8: return 'utf8';
    case T.LargeUtf8: return 'large_utf8';
    case T.Binary: return 'binary';
    case T.LargeBinary: return 'large_binary';
    case T.FixedSizeBinary: return `fixed_size_binary(${t.byteWidth})`;
    case T.Decimal: return `decimal${t.bitWidth}(${t.precision},${t.scale})`;
    case T.Date: return `date(${A.DateUnit[t.unit]})`;
    case T.Time: return `time${t.bitWidth}(${A.TimeUnit[t.unit]})`;
    case T.Timestamp: return `timestamp(${A.TimeUnit[t.unit]},${JSON.stringify(t.timezone ?? null)})`;
    case T.Duration: return `duration(${A.TimeUnit[t.unit]})`;
    case T.Interval: return `interval(${A.IntervalUnit[t.unit]})`;
    case T.List: return `list<${describeField(t.children[0])}>`;
    case T.FixedSizeList: return `fixed_size_list(${t.listSize})<${describeField(t.children[0])}>`;
    case T.Struct: return `struct<${t.children.map(describeField).join(', ')}>`;
    case T.Map: return `map(${t.keysSorted ? 'sorted' : 'unsorted'})<${describeField(t.children[0])}>`;
    case T.Dictionary:
      return `dictionary(${describeType(t.indices)}${t.isOrdered ? ', ordered' : ''})<${describeType(t.dictionary)}>`;
    case T.Union: return `union(${A.UnionMode[t.mode]}, [${t.typeIds}])<${t.children.map(describeField).join(', ')}>`;
    default: return `unknown(${t})`;
  }
}

export function describeField(f) {
  return `${JSON.stringify(f.name)}: ${describeType(f.type)}${f.nullable ? '' : ' not null'}${metadataText(f.metadata)}`;
}

export function describeSchema(s) {
  return `${s.fields.map(describeField).join('\n')}\n${metadataText(s.metadata) || '(no schema metadata)'}`;
}
