// Writes the list data sets of tests/interop/lib/list_columns.mjs with the reference (lance 12
// through @lancedb/lancedb) and prints the data file paths as JSON, for the list take bench:
//   node bench/lance_file_list_peer.mjs --rows 200000 --version 2.2 --dir /tmp/lance-list-bench
import { listColumns, longListColumns, tableOf } from '../tests/interop/lib/list_columns.mjs';
import { writeWithReference } from '../tests/interop/lib/reference_file.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
const rows = Number(args.rows ?? 200000);
const version = args.version ?? '2.2';
const dir = args.dir ?? '/tmp/lance-list-bench';
const lists = await writeWithReference(dir, version, `lists_${rows}`, tableOf(listColumns(rows)));
const long = await writeWithReference(dir, version, `long_lists_${rows}`,
  tableOf(longListColumns(Math.max(1, Math.floor(rows / 10)))));
console.log(JSON.stringify({ lists, long }));
