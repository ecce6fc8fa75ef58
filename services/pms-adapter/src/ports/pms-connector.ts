// One connector per PMS: the HTTP client of that PMS's API behind its own opossum breaker, so
// that one PMS's outage never slows the others. Every attempt has a timeout; a failed attempt
// (timeout, connection error, 5xx, 429) is retried only when the request is safe to repeat
// (see PmsRequest.retryable), and only while the breaker is closed and the time budget lasts.
// What the PMS answers with a 4xx is its decision about the write, not an outage: it is not
// retried and does not count against the breaker.
import CircuitBreaker from 'opossum';
import { AppError } from '@vrp/platform/errors';
import { breakerState } from '@vrp/platform/metrics';
import type { Logger } from '@vrp/platform/logging';
import type { PmsProvider } from '../domain/connection';
import type { PmsFeedChange } from '../domain/normalize';
import type { PmsRequest } from '../domain/relay';

export interface ConnectorOptions {
  /** Per attempt. */
  timeoutMs: number;
  /** Extra attempts of a retryable request. */
  retries: number;
  /** Total time a call may take, retries included (stays under the callers' gRPC deadline). */
  budgetMs: number;
  breaker: { errorThresholdPercentage: number; resetTimeoutMs: number; volumeThreshold: number; rollingCountTimeoutMs: number };
}

export const DEFAULT_CONNECTOR_OPTIONS: ConnectorOptions = {
  timeoutMs: 1500,
  retries: 2,
  budgetMs: 4000,
  breaker: { errorThresholdPercentage: 50, resetTimeoutMs: 5000, volumeThreshold: 3, rollingCountTimeoutMs: 10_000 },
};

/** The PMS answered with a 4xx: a decision about this request, not an outage. */
export class PmsRejection extends Error {
  constructor(
    readonly status: number,
    readonly pmsCode: string,
    message: string,
  ) {
    super(message);
  }
}

/** The PMS did not answer usefully (timeout, connection error, 5xx, 429). */
class PmsFailure extends Error {}

interface Attempt {
  method: string;
  url: string;
  body: unknown;
  idempotencyKey: string;
  timeoutMs: number;
}

export class PmsConnector {
  private readonly breaker: CircuitBreaker<[Attempt], unknown>;

  constructor(
    readonly provider: PmsProvider,
    /** The PMS API's base, e.g. http://pms-a.example/v1 (the simulator: <url>/pms-a/v1). */
    readonly baseUrl: string,
    private readonly options: ConnectorOptions,
    private readonly logger: Logger,
  ) {
    this.breaker = new CircuitBreaker((attempt: Attempt) => this.send(attempt), {
      name: `pms:${provider}`,
      timeout: false, // each attempt carries its own AbortSignal timeout
      errorThresholdPercentage: options.breaker.errorThresholdPercentage,
      resetTimeout: options.breaker.resetTimeoutMs,
      volumeThreshold: options.breaker.volumeThreshold,
      rollingCountTimeout: options.breaker.rollingCountTimeoutMs,
      // true = "not a failure": a 4xx means the PMS is up and answering.
      errorFilter: (err: unknown) => err instanceof PmsRejection,
    });
    this.breaker.on('open', () => {
      breakerState.set({ upstream: `pms:${provider}` }, 1);
      this.logger.warn({ provider }, 'PMS breaker opened; calls fail fast until it half-opens');
    });
    this.breaker.on('close', () => breakerState.set({ upstream: `pms:${provider}` }, 0));
  }

  get isOpen(): boolean {
    return this.breaker.opened;
  }

  /** The account's summary; not_found when the PMS has no such account. */
  async account(accountId: string): Promise<unknown> {
    return this.call('GET', this.accountUrl(accountId, ''), undefined, '', true, { notFound: `${this.provider} has no account '${accountId}'.` });
  }

  /** The account's change feed after `cursor`. */
  async changes(accountId: string, cursor: string, limit: number): Promise<{ changes: PmsFeedChange[]; cursor: string; hasMore: boolean }> {
    const url = `${this.accountUrl(accountId, 'changes')}?since=${encodeURIComponent(cursor)}&limit=${limit}`;
    const res = (await this.call('GET', url, undefined, '', true, { notFound: `${this.provider} has no account '${accountId}'.` })) as {
      changes?: PmsFeedChange[];
      cursor?: unknown;
      hasMore?: boolean;
    };
    return { changes: res.changes ?? [], cursor: String(res.cursor ?? cursor), hasMore: res.hasMore === true };
  }

  /** Performs one write; resolves with the PMS's answer. */
  async write(accountId: string, req: PmsRequest): Promise<unknown> {
    return this.call(req.method, this.accountUrl(accountId, req.path), req.body, req.idempotencyKey, req.retryable, {});
  }

  shutdown(): void {
    this.breaker.shutdown();
  }

  private accountUrl(accountId: string, path: string): string {
    return `${this.baseUrl}/accounts/${encodeURIComponent(accountId)}${path ? `/${path}` : ''}`;
  }

  private async call(method: string, url: string, body: unknown, idempotencyKey: string, retryable: boolean, text: { notFound?: string }): Promise<unknown> {
    const started = Date.now();
    const attempts = retryable ? 1 + this.options.retries : 1;
    for (let i = 0; ; i++) {
      const remaining = this.options.budgetMs - (Date.now() - started);
      try {
        return await this.breaker.fire({ method, url, body, idempotencyKey, timeoutMs: Math.max(1, Math.min(this.options.timeoutMs, remaining)) });
      } catch (err) {
        if (err instanceof PmsRejection) throw this.rejected(err, text);
        if ((err as { code?: unknown }).code === 'EOPENBREAKER') {
          throw new AppError(
            'service_unavailable',
            `${this.provider} is unavailable; calls to it are paused for a few seconds. Nothing was changed.`,
            { retryAfterSeconds: Math.max(1, Math.ceil(this.options.breaker.resetTimeoutMs / 1000)) },
            `Retry after the number of seconds in the Retry-After header${idempotencyKey ? ' with the same Idempotency-Key' : ''}.`,
          );
        }
        const backoff = 100 * 2 ** i;
        const next = Date.now() - started + backoff;
        if (i + 1 >= attempts || next >= this.options.budgetMs || this.breaker.opened) {
          throw new AppError('pms_unavailable', `${this.provider} did not accept the request: ${(err as Error).message}. Nothing was changed here.`);
        }
        this.logger.info({ provider: this.provider, attempt: i + 1, err: (err as Error).message }, 'retrying an idempotent PMS request');
        await new Promise((r) => setTimeout(r, backoff));
      }
    }
  }

  private rejected(err: PmsRejection, text: { notFound?: string }): AppError {
    if (err.status === 404 && text.notFound) return new AppError('not_found', text.notFound);
    // The matrix decides refusals before anything is sent; a PMS that refuses anyway is still
    // the authority on what it can do.
    if (err.status === 422 && err.pmsCode === 'unsupported') {
      return new AppError('pms_write_unsupported', `${this.provider} refused the write: ${err.message}`, { provider: this.provider });
    }
    return new AppError(
      'pms_unavailable',
      `${this.provider} did not accept the write (${err.status}): ${err.message}. Nothing was changed here.`,
      {},
      `Correct the request as ${this.provider} asks, or make the change in ${this.provider}.`,
    );
  }

  private async send(a: Attempt): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(a.url, {
        method: a.method,
        headers: {
          accept: 'application/json',
          ...(a.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(a.idempotencyKey ? { 'idempotency-key': a.idempotencyKey } : {}),
        },
        body: a.body === undefined ? undefined : JSON.stringify(a.body),
        signal: AbortSignal.timeout(a.timeoutMs),
      });
    } catch (err) {
      const name = (err as Error).name;
      throw new PmsFailure(
        name === 'TimeoutError' || name === 'AbortError' ? `no answer within ${a.timeoutMs} ms` : `connection failed (${(err as Error).message})`,
      );
    }
    const raw = await res.text().catch(() => '');
    let parsed: unknown = null;
    try {
      parsed = raw ? JSON.parse(raw) : null;
    } catch {
      parsed = null;
    }
    if (res.ok) return parsed;
    const error = (parsed as { error?: { code?: string; message?: string } } | null)?.error;
    if (res.status >= 400 && res.status < 500 && res.status !== 429) {
      throw new PmsRejection(res.status, error?.code ?? '', error?.message ?? `HTTP ${res.status}`);
    }
    throw new PmsFailure(`HTTP ${res.status}${error?.message ? ` (${error.message})` : ''}`);
  }
}

/** The connectors of every PMS, each with its own base URL and breaker. */
export class ConnectorRegistry {
  private readonly connectors = new Map<PmsProvider, PmsConnector>();

  constructor(
    private readonly baseUrlOf: (provider: PmsProvider) => string,
    private readonly options: ConnectorOptions,
    private readonly logger: Logger,
  ) {}

  of(provider: PmsProvider): PmsConnector {
    let connector = this.connectors.get(provider);
    if (!connector) {
      connector = new PmsConnector(provider, this.baseUrlOf(provider), this.options, this.logger);
      this.connectors.set(provider, connector);
    }
    return connector;
  }

  shutdown(): void {
    for (const c of this.connectors.values()) c.shutdown();
  }
}
