// Load generators of the HTTP benchmarks: `wrk` (closed loop, maximum throughput) and a
// constant-rate client (open loop, wrk2-style: each request has an intended send time and its
// latency is counted from that time, so a stall is not hidden by the client waiting for it).
import { spawn } from 'node:child_process';
import http from 'node:http';

export interface WrkResult {
  requestsPerSecond: number;
  requests: number;
  non2xx: number;
  socketErrors: number;
  latencyMs: { p50: number; p99: number };
}

function toMs(value: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!m) throw new Error(`unreadable wrk latency ${value}`);
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : n * 60_000;
}

/** Parses the report of `wrk --latency`. */
export function parseWrk(out: string): WrkResult {
  const num = (re: RegExp) => Number(re.exec(out)?.[1] ?? NaN);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    requestsPerSecond: num(/Requests\/sec:\s+([\d.]+)/),
    requests: num(/(\d+) requests in/),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: errors ? errors.slice(1).reduce((s, n) => s + Number(n), 0) : 0,
    latencyMs: { p50: toMs(/\n\s+50%\s+(\S+)/.exec(out)?.[1] ?? 'NaNms'), p99: toMs(/\n\s+99%\s+(\S+)/.exec(out)?.[1] ?? 'NaNms') },
  };
}

/** `wrk -t<threads> -c<connections> -d<seconds>s --latency` with the given request headers. */
export function runWrk(url: string, opts: { threads: number; connections: number; seconds: number; headers: Record<string, string> }): Promise<WrkResult> {
  const args = [`-t${opts.threads}`, `-c${opts.connections}`, `-d${opts.seconds}s`, '--latency'];
  for (const [name, value] of Object.entries(opts.headers)) args.push('-H', `${name}: ${value}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', (err) => reject(new Error(`wrk could not run (apt-get install wrk): ${err.message}`)));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`wrk exited with ${code}: ${out}`));
      const result = parseWrk(out);
      if (!Number.isFinite(result.requestsPerSecond)) return reject(new Error(`unreadable wrk report: ${out}`));
      resolve(result);
    });
  });
}

export interface ConstantRateResult {
  rate: number;
  sent: number;
  ok: number;
  failed: number;
  /** Why requests failed: a status code or an error code, with how many times. */
  failures: Record<string, number>;
  latencyMs: { p50: number; p99: number; max: number };
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/**
 * Sends `rate` requests per second for `seconds` over at most `connections` keep-alive
 * connections. A request's latency runs from its intended send time to the end of its response.
 */
export async function runConstantRate(
  url: string,
  opts: { rate: number; seconds: number; connections: number; headers: Record<string, string> },
): Promise<ConstantRateResult> {
  // FIFO: every socket of the pool takes its turn, so none sits idle until the server's keep-alive
  // timeout (5 s, Node's default) closes it while a request is being written to it (ECONNRESET,
  // which LIFO, the default, allows when fewer sockets than the pool holds are enough for the rate).
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.connections, scheduling: 'fifo' });
  const total = Math.round(opts.rate * opts.seconds);
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  const failures: Record<string, number> = {};
  const fail = (reason: string) => {
    failed += 1;
    failures[reason] = (failures[reason] ?? 0) + 1;
  };
  let sent = 0;
  const one = (intended: number) =>
    new Promise<void>((resolve) => {
      const req = http.get(url, { agent, headers: opts.headers }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - intended);
          if (res.statusCode === 200) ok += 1;
          else fail(`status ${res.statusCode}`);
          resolve();
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        fail(err.code ?? err.message);
        resolve();
      });
    });
  const inFlight: Promise<void>[] = [];
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * opts.rate) + 1);
      while (sent < due) {
        inFlight.push(one(t0 + (sent / opts.rate) * 1000));
        sent += 1;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.all(inFlight);
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    rate: opts.rate,
    sent,
    ok,
    failed,
    failures,
    latencyMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN },
  };
}

export interface ClosedLoopResult {
  requests: number;
  requestsPerSecond: number;
  /** Answers by status code (and errors by code). */
  outcomes: Record<string, number>;
  latencyMs: { p50: number; p99: number; max: number };
}

/**
 * `clients` clients, each sending its next request when the previous one is answered, for
 * `seconds`, over keep-alive connections; `request(n)` makes the n-th request of the run (its
 * method, path, headers and body), so every request can be distinct.
 */
export async function runClosedLoop(
  baseUrl: string,
  opts: { clients: number; seconds: number; request: (n: number) => { method: string; path: string; headers: Record<string, string>; body?: string } },
): Promise<ClosedLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.clients });
  const latencies: number[] = [];
  const outcomes: Record<string, number> = {};
  const count = (outcome: string) => (outcomes[outcome] = (outcomes[outcome] ?? 0) + 1);
  let next = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      const { method, path, headers, body } = opts.request(next++);
      const started = performance.now();
      const req = http.request(
        `${baseUrl}${path}`,
        { method, agent, headers: body ? { ...headers, 'content-length': String(Buffer.byteLength(body)) } : headers },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - started);
            count(String(res.statusCode));
            resolve();
          });
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        count(err.code ?? err.message);
        resolve();
      });
      req.end(body);
    });
  const t0 = performance.now();
  const end = t0 + opts.seconds * 1000;
  await Promise.all(
    Array.from({ length: opts.clients }, async () => {
      while (performance.now() < end) await one();
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    requestsPerSecond: latencies.length / elapsed,
    outcomes,
    latencyMs: { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN },
  };
}
