// Helpers shared by the tests of every package and service: the error a call failed with, and
// waiting for a condition (tests wait for conditions, never for fixed sleeps).
import { AppError } from '@vrp/platform/errors';
import { rejectionOf } from './rejection';

export { rejectionOf };

/** The AppError a call fails with; fails the test when the call succeeds or throws anything else. */
export const errorOf = (p: Promise<unknown>): Promise<AppError> => rejectionOf(p, AppError);

export { eventually, until, type WaitOptions } from './wait';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  /** The decoded JSON body; null when the answer is empty or not JSON. */
  body: T;
  text: string;
}

/** fetch + JSON decode (the text is kept for non-JSON answers). */
export async function request<T = unknown>(url: string, init: RequestInit = {}): Promise<ApiResponse<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = null;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text) as unknown;
  return { status: res.status, headers: res.headers, body: body as T, text };
}

export { startFakeService } from './fake-service';
export { parseRawResponse, rawExchange, type RawResponse } from './raw-http';
export { putChannelTraffic, type ChannelControl, type ChannelTraffic } from './channel-traffic';
