// Peak memory of the CLI follows its batches, not its input (issue 15, item 8): the peak RSS
// (GNU time's %M) of `lance create` from a CSV file, from stdin and from an Arrow IPC stream,
// and of `lance scan` to a file and to stdout, at 1x and 10x the rows. 10x the input may cost
// at most 1.6x the memory. The 10x answers are checked too (row counts and the last row), so a
// command that reads less than it should cannot pass by using less memory.
//
// Both sizes use 100000-row fragments and 1 MiB input batches, so that the 1x run already fills
// the file writer's pages and one batch: what stays is what grows with the input.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';

import { LANCE_BIN, lanceOk, scratchDir } from './lib/cli.mjs';

const dir = scratchDir('lance-memory-');
const TIME = '/usr/bin/time';
const ROWS = 250000;
const WRITE = ['--input-batch-bytes', '1048576', '--max-rows-per-file', '100000'];

// Runs `shell` (a bash command line with "$L" the CLI) under GNU time; returns the peak RSS in
// KiB and the command's stdout.
function peakKiB(shell) {
  const out = path.join(dir, 'time.out');
  const r = spawnSync('bash', ['-c', `set -o pipefail; ${shell}`], {
    env: { ...process.env, L: LANCE_BIN, T: TIME, TOUT: out },
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  assert.equal(r.status, 0, `${shell}: ${r.stderr}`);
  const kib = Number(fs.readFileSync(out, 'utf8').trim().split('\n').pop());
  assert.ok(kib > 0, `no peak RSS for ${shell}`);
  return { kib, stdout: r.stdout };
}
const timed = (args) => `"$T" -o "$TOUT" -f %M "$L" ${args}`;

const csvOf = (n) => path.join(dir, `rows${n}.csv`);
const lastRow = (n) => ({ id: n - 1, v: (n - 1) / 4, s: `text ${(n - 1) % 977} of the row` });

before(() => {
  assert.ok(fs.existsSync(TIME), `${TIME} (GNU time) is needed to measure peak memory`);
  for (const n of [ROWS, 10 * ROWS]) {
    const fd = fs.openSync(csvOf(n), 'w');
    fs.writeSync(fd, 'id,v,s\n');
    const step = 50000;
    for (let start = 0; start < n; start += step) {
      let text = '';
      for (let i = start; i < Math.min(n, start + step); ++i) text += `${i},${i / 4},text ${i % 977} of the row\n`;
      fs.writeSync(fd, text);
    }
    fs.closeSync(fd);
  }
});

// The peak at 1x and at 10x of `run(n)`, asserted within 1.6x.
function bounded(what, run) {
  const small = run(ROWS);
  const big = run(10 * ROWS);
  const ratio = big.kib / small.kib;
  console.log(`${what}: ${(small.kib / 1024).toFixed(1)} MiB at 1x, ${(big.kib / 1024).toFixed(1)} MiB at 10x (${ratio.toFixed(2)}x)`);
  assert.ok(ratio < 1.6, `${what}: peak RSS ${small.kib} KiB at 1x, ${big.kib} KiB at 10x (${ratio.toFixed(2)}x)`);
  return big;
}

function checkTable(uri, n) {
  assert.equal(Number(lanceOk(['count', uri]).stdout.trim()), n);
  const last = lanceOk(['scan', uri, '--offset', String(n - 1)]).stdout.trim();
  assert.deepEqual(JSON.parse(last), lastRow(n));
}

describe('create', () => {
  test('from a CSV file', () => {
    bounded('create from a CSV file', (n) => {
      const uri = path.join(dir, `file${n}.lance`);
      const r = peakKiB(timed(`create "${uri}" --input "${csvOf(n)}" ${WRITE.join(' ')} > /dev/null`));
      checkTable(uri, n);
      return r;
    });
  });
  test('from stdin', () => {
    bounded('create from stdin', (n) => {
      const uri = path.join(dir, `stdin${n}.lance`);
      const r = peakKiB(`cat "${csvOf(n)}" | ${timed(`create "${uri}" --input - ${WRITE.join(' ')} > /dev/null`)}`);
      checkTable(uri, n);
      return r;
    });
  });
  test('from an Arrow IPC stream, as a file and on stdin', () => {
    for (const fromStdin of [false, true]) {
      bounded(`create from an IPC stream${fromStdin ? ' on stdin' : ''}`, (n) => {
        const arrows = path.join(dir, `rows${n}.arrows`);
        if (!fs.existsSync(arrows)) lanceOk(['scan', path.join(dir, `file${n}.lance`), '--output', arrows]);
        const uri = path.join(dir, `ipc${fromStdin ? 's' : 'f'}${n}.lance`);
        const r = peakKiB(fromStdin
          ? `cat "${arrows}" | ${timed(`create "${uri}" --input - --max-rows-per-file 100000 > /dev/null`)}`
          : timed(`create "${uri}" --input "${arrows}" --max-rows-per-file 100000 > /dev/null`));
        checkTable(uri, n);
        return r;
      });
    }
  });
});

describe('scan', () => {
  test('to a file (CSV and Arrow IPC)', () => {
    for (const ext of ['csv', 'arrows']) {
      bounded(`scan --output .${ext}`, (n) => {
        const out = path.join(dir, `out${n}.${ext}`);
        const r = peakKiB(timed(`scan "${path.join(dir, `file${n}.lance`)}" --output "${out}" > /dev/null`));
        if (ext === 'csv') {
          const text = fs.readFileSync(out, 'utf8');
          assert.equal(text.split('\n').length - 2, n);  // header and the last line break
          assert.ok(text.endsWith(`${n - 1},${(n - 1) / 4},text ${(n - 1) % 977} of the row\n`));
        }
        fs.rmSync(out);
        return r;
      });
    }
  });
  test('to stdout, and a filtered count', () => {
    bounded('scan to stdout', (n) => {
      const r = peakKiB(`${timed(`scan "${path.join(dir, `file${n}.lance`)}"`)} | tail -n 1`);
      assert.deepEqual(JSON.parse(r.stdout.trim()), lastRow(n));
      return r;
    });
    bounded('count --filter', (n) => {
      const r = peakKiB(timed(`count "${path.join(dir, `file${n}.lance`)}" --filter "v >= 0.5"`));
      assert.equal(Number(r.stdout.trim()), n - 2);
      return r;
    });
  });
});
