// Data files written by the reference (lance 12 via @lancedb/lancedb): a one-fragment table is
// created in `{dir}/{version}/{name}.lance` with the given data storage version, and the path
// of its single data file is returned, for the tests that read loose Lance files.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const lancedb = require('@lancedb/lancedb');

export async function writeWithReference(dir, version, name, table) {
  const db = await lancedb.connect(path.join(dir, version));
  await db.createTable(name, table, { storageOptions: { new_table_data_storage_version: version } });
  const dataDir = path.join(dir, version, `${name}.lance`, 'data');
  const files = fs.readdirSync(dataDir).filter((f) => f.endsWith('.lance'));
  assert.equal(files.length, 1, `${name}: one data file`);
  return path.join(dataDir, files[0]);
}
