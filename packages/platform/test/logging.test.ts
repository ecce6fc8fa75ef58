// The process's stdout destination batches its lines (one write carries many), and still: a line
// of a quiet process reaches stdout on its own while the process runs, and a process that dies of
// an uncaught exception has written every line it logged before.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
// By path: @vrp/testkit depends on this package; this module of it depends on nothing.
import { until } from '../../testkit/src/wait';

const ROOT = join(__dirname, '..', '..', '..');
const CHILD = join(__dirname, 'fixtures', 'log-child.ts');

function start(mode: 'quiet' | 'crash'): { child: ChildProcess; stdout: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, mode], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, exited };
}

const linesOf = (out: string) =>
  out
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { n: number; msg: string; service: string });

describe('the stdout destination', () => {
  it('writes the one line of a quiet process while the process runs', async () => {
    const proc = start('quiet');
    try {
      const out = await until(proc.stdout, (s) => s.includes('\n'), { timeoutMs: 20_000, what: 'the line on stdout' });
      expect(proc.child.exitCode).toBeNull();
      expect(linesOf(out)).toEqual([expect.objectContaining({ n: 0, msg: 'alone', service: 'log-child' })]);
    } finally {
      proc.child.kill('SIGKILL');
      await proc.exited;
    }
  });

  it('has written every line, in order, when the process dies of an uncaught exception', async () => {
    const proc = start('crash');
    expect(await proc.exited).not.toBe(0);
    expect(linesOf(proc.stdout()).map((l) => l.n)).toEqual(Array.from({ length: 500 }, (_, n) => n));
  });
});
