// Running the `lance` CLI from tests, and scratch directories outside the repository.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const LANCE_BIN = process.env.LANCE_BIN;

// Runs `lance ...args`; returns { status, signal, stdout, stderr } with stdout/stderr as
// UTF-8 text. Throws when LANCE_BIN is unset or the binary cannot be started.
export function lance(args, { input } = {}) {
  if (!LANCE_BIN) throw new Error('LANCE_BIN is not set (ctest sets it to the lance CLI binary)');
  const r = spawnSync(LANCE_BIN, args, { input, maxBuffer: 1 << 30, timeout: 60000 });
  if (r.error) throw r.error;
  return {
    status: r.status,
    signal: r.signal,
    stdout: r.stdout.toString('utf8'),
    stderr: r.stderr.toString('utf8'),
  };
}

// Like lance() but fails with the command's stderr unless it exits 0.
export function lanceOk(args, opts) {
  const r = lance(args, opts);
  if (r.status !== 0) {
    throw new Error(`lance ${args.join(' ')} exited ${r.status ?? r.signal}: ${r.stderr.trim()}`);
  }
  return r;
}

// A fresh temporary directory, removed when the process exits.
export function scratchDir(prefix = 'lance-interop-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// Runs every `lance` command at once as real processes (for commit races); resolves to
// [{status, stdout, stderr, args}] in the order given.
export function lanceAll(commands) {
  return Promise.all(commands.map((args) => new Promise((resolve, reject) => {
    const p = spawn(LANCE_BIN, args);
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => { stdout += d; });
    p.stderr.on('data', (d) => { stderr += d; });
    p.on('error', reject);
    p.on('close', (status) => resolve({ status, stdout, stderr, args }));
  })));
}

// Lance files `a` (the reference's) and `b` (ours) hold the same rows in the same order, the same
// schema and as many global buffers (`what` names them); returns b's rows as `lance file cat`
// prints them.
export function assertSameLanceFile(a, b, what) {
  const [ra, rb] = [a, b].map((p) => lanceOk(['file', 'cat', p]).stdout);
  assert.equal(rb, ra, what);
  const [ia, ib] = [a, b].map((p) => JSON.parse(lanceOk(['file', 'info', p]).stdout));
  assert.deepEqual(ib.schema, ia.schema, `${what}: schema`);
  assert.equal(ib.num_global_buffers, ia.num_global_buffers, `${what}: global buffers`);
  return rb;
}
