// The apache-arrow side of the Arrow IPC benchmark (bench/run_ipc_bench.sh).
//   node ipc_peer.mjs make FILE MB     writes a mixed IPC file of about MB MiB
//                                      (int64, float64, utf8 of 16 bytes, fixed_size_list<float32,128>)
//   node ipc_peer.mjs time FILE REPS   times tableFromIPC (read) and tableToIPC 'file' (write) on it,
//                                      median of REPS after one warm-up, printed as JSON
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "../tests/interop/package.json"));
const arrow = require("apache-arrow");

function xorshift(seed) {
  let x = BigInt.asUintN(64, BigInt(seed) * 0x9e3779b97f4a7c15n + 1n);
  return () => {
    x ^= BigInt.asUintN(64, x << 13n);
    x ^= x >> 7n;
    x ^= BigInt.asUintN(64, x << 17n);
    return x;
  };
}

function make(file, mb) {
  const rows = Math.floor((mb * 1024 * 1024) / 548);
  const batchRows = 65536;
  const batches = [];
  const next = xorshift(1);
  for (let start = 0; start < rows; start += batchRows) {
    const n = Math.min(batchRows, rows - start);
    const ids = new BigInt64Array(n);
    const scores = new Float64Array(n);
    const texts = new Array(n);
    const vecs = new Float32Array(n * 128);
    for (let i = 0; i < n; i++) {
      ids[i] = BigInt(start + i);
      scores[i] = Number(next() % 1000000n) / 1000;
      texts[i] = ("s" + (start + i)).padEnd(16, "x");
    }
    for (let j = 0; j < vecs.length; j++) vecs[j] = (j % 977) / 977 - 0.5;
    const vecType = new arrow.FixedSizeList(128, new arrow.Field("item", new arrow.Float32(), true));
    const vecData = arrow.makeData({
      type: vecType, length: n, nullCount: 0,
      child: arrow.makeData({ type: new arrow.Float32(), length: n * 128, data: vecs }),
    });
    const table = new arrow.Table({
      i: arrow.makeVector(ids),
      f: arrow.makeVector(scores),
      s: arrow.vectorFromArray(texts, new arrow.Utf8()),
      v: arrow.makeVector(vecData),
    });
    batches.push(...table.batches);
  }
  const table = new arrow.Table(batches);
  fs.writeFileSync(file, arrow.tableToIPC(table, "file"));
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(file, reps) {
  const bytes = fs.readFileSync(file);
  const read = [];
  const write = [];
  let table;
  for (let r = 0; r <= reps; r++) {
    const t0 = performance.now();
    table = arrow.tableFromIPC(bytes);
    const t1 = performance.now();
    const out = arrow.tableToIPC(table, "file");
    const t2 = performance.now();
    if (out.length === 0) throw new Error("empty output");
    if (r > 0) {
      read.push(t1 - t0);
      write.push(t2 - t1);
    }
  }
  const gb = bytes.length / 1e9;
  const res = {
    bytes: bytes.length, rows: table.numRows,
    read_ms: median(read), write_ms: median(write),
    read_gbps: gb / (median(read) / 1e3), write_gbps: gb / (median(write) / 1e3),
  };
  console.log(JSON.stringify(res));
}

const [cmd, file, arg] = process.argv.slice(2);
if (cmd === "make") make(file, Number(arg || 256));
else if (cmd === "time") time(file, Number(arg || 5));
else {
  console.error("usage: ipc_peer.mjs make FILE MB | time FILE REPS");
  process.exit(2);
}
