// Black-box harness: boots the whole embedded stack on free ports and talks to it over HTTP only:
// the API, the admin API and the PMS simulator's control API. Tests use the fields below, never
// `stack` (the in-process handle, kept for the harness itself; the lint rule of e2e/ forbids
// reaching through it).
import { SimulatorControl } from '@vrp/pms-simulator';
import type { ErrorEnvelope } from '@vrp/api-model';
import { startStack, type Stack } from '@vrp/stack';
import { eventually as waitFor, request, type ApiResponse } from '@vrp/testkit';

export type { ApiResponse };

/** The error envelope (spec 7), as the API's schema describes it. */
export type ErrorBody = ErrorEnvelope;

export interface TestStack {
  stack: Stack;
  baseUrl: string;
  /** The gateway's private listener: the admin API and /metrics (never on baseUrl). */
  adminBaseUrl: string;
  /** The base of the gateway's absolute links (docs_url). */
  publicBaseUrl: string;
  adminToken: string;
  /** The demo workspace's listings as seeded: Sea View Apartment, Old Town Loft, Mountain Cabin (inactive). */
  demoListingIds: string[];
  /** The PMS simulator's control API (HTTP): change data "in the PMS", inject faults, read its request log. */
  pms: SimulatorControl;
  apiKey: string;
  workspaceId: string;
  /** Where the demo key's data lives (the workspace's test-mode sandbox): what the services and the bus see. */
  dataWorkspaceId: string;
  /** An API call with the demo key (or `key`), JSON in and out. */
  api<T = unknown>(method: string, path: string, body?: unknown, opts?: { key?: string | null; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  /** An admin API call with the stack's admin token. */
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
  stop(): Promise<void>;
}

function call<T>(baseUrl: string, method: string, path: string, body: unknown, headers: Record<string, string>): Promise<ApiResponse<T>> {
  return request<T>(`${baseUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The embedded stack on free ports; `demoPms` also connects the demo workspace to the simulated PMS-A. */
export async function startTestStack(opts: { demoPms?: boolean; upstreamDeadlineMs?: number } = {}): Promise<TestStack> {
  const stack = await startStack({ port: 0, ephemeralPorts: true, logLevel: process.env.TEST_LOG_LEVEL ?? 'silent', ...opts });
  const demo = stack.demo!;
  return {
    stack,
    baseUrl: stack.baseUrl,
    adminBaseUrl: stack.adminBaseUrl,
    publicBaseUrl: stack.publicBaseUrl,
    adminToken: stack.adminToken,
    demoListingIds: [...demo.listingIds],
    pms: new SimulatorControl(stack.pmsSimulator.url),
    apiKey: demo.apiKey,
    workspaceId: demo.workspaceId,
    dataWorkspaceId: demo.dataWorkspaceId,
    api: (method, path, body, opts = {}) => {
      const key = opts.key === undefined ? demo.apiKey : opts.key;
      return call(stack.baseUrl, method, path, body, { ...(key ? { authorization: `Bearer ${key}` } : {}), ...opts.headers });
    },
    admin: (method, path, body) => call(stack.adminBaseUrl, method, path, body, { authorization: `Bearer ${stack.adminToken}` }),
    stop: () => stack.stop(),
  };
}

/** Polls `check` until it returns true (no fixed sleeps); fails after `timeoutMs`. */
export function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  // A check that throws (e.g. a 429 answer without `data` while polling fast) counts as "not yet";
  // the polling interval stays well under every rate limit of the API and the admin API.
  return waitFor(check, { timeoutMs, what, intervalMs: 25, throwsMeanNotYet: true });
}
