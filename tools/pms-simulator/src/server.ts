// The PMS simulator's HTTP server. Two surfaces:
//
// - The PMS API, as the pms-adapter's connectors call it, one per PMS under /<slug>/v1
//   (slug = pms-a .. pms-g): account, change feed, and the writes. Writes honour
//   `Idempotency-Key` (a repeated key gets the first answer and changes nothing), and a PMS
//   refuses (422) what its API cannot do (its endpoint table, endpoints.ts). Every call is
//   logged, faults can be injected.
// - The control API under /_control, for tests and development: change data "in the PMS" (as
//   the PMS receives it from channels: listings, reservations, guests, guest messages, reviews,
//   booking requests and inquiries), inject faults (fail with a status, answer slowly, refuse
//   the next N writes of a kind), read and clear the request log.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WRITE_KINDS, type PmsName, type WriteKind } from './endpoints';
import { PmsRefusal, PROVIDER_SLUGS, providerOfSlug, SimulatorState, type PmsAccount } from './state';

type Provider = PmsName;

export interface Fault {
  /** fail: answer `status` (default 503) without doing anything; slow: wait `delayMs` first. */
  mode: 'fail' | 'slow';
  status?: number;
  delayMs?: number;
}

/** Refuse the next `count` writes of `kind` (that the PMS would otherwise perform) with `status`. */
export interface Refusal {
  kind: WriteKind;
  count: number;
  /** Default 422. */
  status?: number;
  /** The PMS's error code; default `refused` (`unsupported` reads as "this PMS cannot do it"). */
  code?: string;
  reason?: string;
}

export interface LoggedRequest {
  provider: Provider;
  account: string;
  method: string;
  path: string;
  idempotencyKey: string | null;
  body: unknown;
  at: string;
}

export interface PmsSimulator {
  url: string;
  port: number;
  state: SimulatorState;
  close(): Promise<void>;
}

type Body = Record<string, unknown>;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function readBody(req: http.IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1_048_576) {
        reject(new HttpError(413, 'too_large', 'Body over 1 MiB.'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text) return resolve(undefined);
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(new HttpError(400, 'invalid_json', 'The body is not JSON.'));
      }
    });
    req.on('error', reject);
  });
}

const asObject = (v: unknown): Body => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Body) : {});

export async function startPmsSimulator(opts: { port?: number; host?: string; state?: SimulatorState } = {}): Promise<PmsSimulator> {
  const state = opts.state ?? new SimulatorState();
  const faults = new Map<Provider, Fault>();
  /** Armed refusals per PMS and kind of write, consumed one write at a time. */
  const refusals = new Map<string, Required<Omit<Refusal, 'kind'>>>();
  const log: LoggedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();

  /** PMS API: one write, answered once per Idempotency-Key. */
  function write(account: PmsAccount, kind: WriteKind, key: string | null, status: number, run: () => unknown): { status: number; body: unknown } {
    if (key) {
      const seen = account.idempotent.get(key);
      if (seen) return seen;
    }
    const armed = refusals.get(`${account.provider}|${kind}`);
    if (armed && armed.count > 0) {
      armed.count -= 1;
      if (armed.count === 0) refusals.delete(`${account.provider}|${kind}`);
      throw new PmsRefusal(armed.status, armed.code, armed.reason);
    }
    const answer = { status, body: run() };
    if (key) account.idempotent.set(key, answer);
    return answer;
  }

  async function pmsApi(provider: Provider, rest: string[], method: string, req: http.IncomingMessage, url: URL): Promise<{ status: number; body: unknown }> {
    const body = await readBody(req);
    const key = (req.headers['idempotency-key'] as string | undefined) ?? null;
    const [accounts, accountId, ...path] = rest;
    if (accounts !== 'accounts' || !accountId) throw new HttpError(404, 'not_found', 'No such PMS endpoint.');
    log.push({ provider, account: accountId, method, path: url.pathname, idempotencyKey: key, body: body ?? null, at: new Date().toISOString() });

    const fault = faults.get(provider);
    if (fault?.mode === 'slow') await new Promise((r) => setTimeout(r, fault.delayMs ?? 1000));
    if (fault?.mode === 'fail') throw new HttpError(fault.status ?? 503, 'pms_down', `${provider} is failing (simulated).`);

    const account = state.account(provider, accountId);
    const b = asObject(body);
    const route = `${method} ${path.map((p, i) => (i % 2 === 1 ? ':id' : p)).join('/')}`;
    const id = path[1] ?? '';
    switch (route) {
      case 'GET ':
        return { status: 200, body: { id: account.id, provider, listings: account.listings.size } };
      case 'GET changes': {
        const since = Number(url.searchParams.get('since') ?? '0') || 0;
        const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? '100') || 100, 1), 1000);
        return { status: 200, body: state.changesSince(account, since, limit) };
      }
      case 'POST reservations':
        return write(account, 'reservation.create', key, 201, () => state.createReservation(account, b));
      case 'PATCH reservations/:id':
        return write(account, 'reservation.modify', key, 200, () => state.modifyReservation(account, id, b));
      case 'POST reservations/:id/cancel':
        return write(account, 'reservation.cancel', key, 200, () => state.cancelReservation(account, id));
      case 'POST quotes':
        return write(account, 'quote', key, 200, () => state.quote(account, b));
      case 'POST guests':
        return write(account, 'guest.create', key, 201, () => state.writeGuest(account, null, b));
      case 'PATCH guests/:id':
        return write(account, 'guest.update', key, 200, () => state.writeGuest(account, id, b));
      case 'PUT listings/:id/content/:id':
        return write(account, 'content', key, 200, () => state.putContent(account, id, path[3] ?? '', b.value));
      case 'PUT listings/:id/calendar':
        return write(account, 'calendar', key, 200, () => state.putCalendar(account, id, body));
      case 'POST messages':
        return write(account, 'message.send', key, 201, () => state.sendMessage(account, b));
      case 'POST reviews/:id/reply':
        return write(account, 'review.reply', key, 200, () => state.replyToReview(account, id, b));
      case 'POST requests/:id/answer':
        return write(account, 'request.answer', key, 200, () => state.answerRequest(account, id, b));
      case 'POST inquiries/:id/pre-approve':
        return write(account, 'inquiry.pre_approve', key, 200, () => state.preApprove(account, id, b));
      default:
        throw new HttpError(404, 'not_found', `No PMS endpoint ${method} ${url.pathname}.`);
    }
  }

  async function controlApi(rest: string[], method: string, req: http.IncomingMessage, url: URL): Promise<{ status: number; body: unknown }> {
    const body = asObject(await readBody(req));
    const [first, second, third, fourth, fifth, sixth] = rest;
    if (first === 'accounts' && method === 'POST' && !second) {
      const provider = providerOfSlug(String(body.provider ?? ''));
      if (!provider || typeof body.accountId !== 'string' || !body.accountId)
        throw new HttpError(400, 'bad_request', 'provider (PMS-A..PMS-G) and accountId are required.');
      const account = state.ensureAccount(provider, body.accountId);
      return { status: 201, body: { provider, accountId: account.id } };
    }
    if (first === 'requests') {
      const provider = url.searchParams.get('provider');
      const account = url.searchParams.get('account');
      if (method === 'DELETE') {
        log.length = 0;
        return { status: 204, body: null };
      }
      return { status: 200, body: { requests: log.filter((r) => (!provider || r.provider === provider) && (!account || r.account === account)) } };
    }
    if (first === 'faults') {
      if (method === 'DELETE' && !second) {
        faults.clear();
        refusals.clear();
        return { status: 204, body: null };
      }
      // PUT /_control/faults/<pms-x>/refusals {kind, count, status?, code?, reason?}
      if (third === 'refusals' && method === 'PUT') {
        const provider = providerOfSlug(second ?? '');
        if (!provider) throw new HttpError(404, 'not_found', 'Unknown provider.');
        const kind = String(body.kind ?? '') as WriteKind;
        const count = body.count ?? 1;
        const status = body.status ?? 422;
        if (!WRITE_KINDS.includes(kind)) throw new HttpError(400, 'bad_request', `kind must be one of ${WRITE_KINDS.join(', ')}.`);
        if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) throw new HttpError(400, 'bad_request', 'count must be a positive integer.');
        if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 499)
          throw new HttpError(400, 'bad_request', 'status must be a 4xx (a refusal, not an outage: use mode "fail" for that).');
        const armed = {
          count,
          status,
          code: typeof body.code === 'string' && body.code ? body.code : 'refused',
          reason: typeof body.reason === 'string' && body.reason ? body.reason : `${provider} refused the ${kind} (simulated).`,
        };
        refusals.set(`${provider}|${kind}`, armed);
        return { status: 200, body: { provider, kind, ...armed } };
      }
      const provider = providerOfSlug(second ?? '');
      if (!provider) throw new HttpError(404, 'not_found', 'Unknown provider.');
      if (method === 'DELETE') faults.delete(provider);
      else if (method === 'PUT') {
        if (body.mode !== 'fail' && body.mode !== 'slow') throw new HttpError(400, 'bad_request', "mode must be 'fail' or 'slow'.");
        faults.set(provider, {
          mode: body.mode,
          status: typeof body.status === 'number' ? body.status : undefined,
          delayMs: typeof body.delayMs === 'number' ? body.delayMs : undefined,
        });
      } else throw new HttpError(405, 'method_not_allowed', 'PUT or DELETE.');
      return { status: 200, body: { provider, fault: faults.get(provider) ?? null } };
    }
    // /_control/<slug>/accounts/<account>[/<kind>/<id>]
    const provider = providerOfSlug(first ?? '');
    if (provider && second === 'accounts' && third) {
      const account = state.account(provider, third);
      if (!fourth && method === 'GET') {
        return {
          status: 200,
          body: {
            provider,
            accountId: account.id,
            listings: [...account.listings.values()],
            reservations: [...account.reservations.values()],
            guests: [...account.guests.values()],
            messages: [...account.messages.values()],
            reviews: [...account.reviews.values()],
            requests: [...account.requests.values()],
            changes: account.changes.length,
          },
        };
      }
      if (fifth && !sixth && method === 'PUT') {
        if (fourth === 'listings') return { status: 200, body: state.upsertListing(account, fifth, body) };
        if (fourth === 'reservations') return { status: 200, body: state.upsertReservation(account, fifth, body) };
        if (fourth === 'guests') return { status: 200, body: state.upsertGuest(account, fifth, body) };
        // As the PMS receives them from channels.
        if (fourth === 'messages') return { status: 200, body: state.receiveMessage(account, fifth, body) };
        if (fourth === 'reviews') return { status: 200, body: state.upsertReview(account, fifth, body) };
        if (fourth === 'requests') return { status: 200, body: state.upsertRequest(account, fifth, body) };
      }
    }
    throw new HttpError(404, 'not_found', `No control endpoint ${method} ${url.pathname}.`);
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://simulator');
    const [head, version, ...rest] = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    const method = req.method ?? 'GET';
    const handle = async (): Promise<{ status: number; body: unknown }> => {
      if (head === '_control') return controlApi([version ?? '', ...rest].filter(Boolean), method, req, url);
      const provider = providerOfSlug(head ?? '');
      if (!provider || version !== 'v1') throw new HttpError(404, 'not_found', 'Unknown PMS; paths start with /pms-a/v1 .. /pms-g/v1.');
      return pmsApi(provider, rest, method, req, url);
    };
    handle().then(
      ({ status, body }) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(body === null ? undefined : JSON.stringify(body));
      },
      (err: unknown) => {
        const status = err instanceof HttpError || err instanceof PmsRefusal ? err.status : 500;
        const code = err instanceof HttpError || err instanceof PmsRefusal ? err.code : 'internal';
        if (!res.headersSent) res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code, message: err instanceof Error ? err.message : String(err) } }));
      },
    );
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}`,
    port,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        // Slow (simulated) answers must not hold the close open.
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export { PROVIDER_SLUGS };
