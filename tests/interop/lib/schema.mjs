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

// The schema JSON form of docs/cli.md ("Schema JSON"), used by `--schema`.
const UNIT = { [A.TimeUnit.SECOND]: 's', [A.TimeUnit.MILLISECOND]: 'ms', [A.TimeUnit.MICROSECOND]: 'us', [A.TimeUnit.NANOSECOND]: 'ns' };

export function typeToJson(t) {
  switch (t.typeId) {
    case T.Null: return 'null';
    case T.Bool: return 'bool';
    case T.Int: return `${t.isSigned ? 'int' : 'uint'}${t.bitWidth}`;
    case T.Float: return `float${[16, 32, 64][t.precision]}`;
    case T.Utf8: return 'utf8';
    case T.LargeUtf8: return 'large_utf8';
    case T.Binary: return 'binary';
    case T.LargeBinary: return 'large_binary';
    case T.Date: return t.unit === A.DateUnit.DAY ? 'date32' : 'date64';
    case T.FixedSizeBinary: return { name: 'fixed_size_binary', byte_width: t.byteWidth };
    case T.Time: return { name: `time${t.bitWidth}`, unit: UNIT[t.unit] };
    case T.Timestamp:
      return t.timezone ? { name: 'timestamp', unit: UNIT[t.unit], timezone: t.timezone }
                        : { name: 'timestamp', unit: UNIT[t.unit] };
    case T.Duration: return { name: 'duration', unit: UNIT[t.unit] };
    case T.Decimal: return { name: `decimal${t.bitWidth}`, precision: t.precision, scale: t.scale };
    case T.List: return { name: 'list', item: fieldToJson(t.children[0]) };
    case T.FixedSizeList: return { name: 'fixed_size_list', item: fieldToJson(t.children[0]), list_size: t.listSize };
    case T.Struct: return { name: 'struct', fields: t.children.map(fieldToJson) };
    case T.Map: return { name: 'map', entries: fieldToJson(t.children[0]), keys_sorted: !!t.keysSorted };
    case T.Dictionary:
      return { name: 'dictionary', index: typeToJson(t.indices), value: typeToJson(t.dictionary), ordered: !!t.isOrdered };
    default: throw new Error(`typeToJson: unsupported type ${t}`);
  }
}

export function fieldToJson(f) {
  const out = { name: f.name, type: typeToJson(f.type), nullable: f.nullable };
  if (f.metadata && f.metadata.size > 0) out.metadata = Object.fromEntries(f.metadata);
  return out;
}

export function schemaToJson(s) {
  const out = { fields: s.fields.map(fieldToJson) };
  if (s.metadata && s.metadata.size > 0) out.metadata = Object.fromEntries(s.metadata);
  return JSON.stringify(out);
}
