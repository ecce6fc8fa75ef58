// Black-box harness: boots the whole embedded stack on free ports and talks to it over HTTP only:
// the API, the admin API and the PMS simulator's control API. Tests use the fields below, never
// `stack` (the in-process handle, kept for the harness itself; the lint rule of e2e/ forbids
// reaching through it).
import { SimulatorControl } from '@vrp/pms-simulator';
import type { ErrorEnvelope } from '@vrp/api-model';
import { SERVICE_NAMES, startStack, type Stack } from '@vrp/stack';
import { eventually as waitFor, request, type ApiResponse } from '@vrp/testkit';

export type { ApiResponse };
/** Raw HTTP/1.1 for requests no client library sends (no Host, a made-up Expect). */
export { parseRawResponse, rawExchange } from '@vrp/testkit';

/** The error envelope (docs/api.md, "Errors"), as the API's schema describes it. */
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
  /** An API call with the demo key (or `key`), JSON in and out; `baseUrl` picks one gateway replica. */
  api<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    opts?: { key?: string | null; headers?: Record<string, string>; baseUrl?: string },
  ): Promise<ApiResponse<T>>;
  /** Where each gateway replica listens now, apart from the balancer at `baseUrl` (a restart moves one). */
  gatewayUrls(): string[];
  /**
   * What an operator's rolling upgrade does: every instance of every service, then every gateway
   * replica, one at a time, stopped as on SIGTERM (not ready, drained, groups left, leases handed
   * over) and started again; `between` runs after each step.
   */
  rollingRestart(between?: (step: string) => Promise<void>): Promise<string[]>;
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

/**
 * Instances of every service and of the gateway in the whole-stack tests: two, as production runs
 * them (E2E_REPLICAS overrides it).
 */
/** The pause of a rolling restart after each instance: longer than a gRPC client's longest reconnect backoff (1 s). */
const MIN_READY_MS = 1200;

export const E2E_REPLICAS = Number(process.env.E2E_REPLICAS ?? 2);

/**
 * The embedded stack on free ports, with E2E_REPLICAS instances of every service (the gateway's
 * replicas behind a balancer at `baseUrl`); `demoPms` also connects the demo workspace to the
 * simulated PMS-A.
 */
export async function startTestStack(
  opts: { demoPms?: boolean; upstreamDeadlineMs?: number; replicas?: number; pmsSyncIntervalMs?: number } = {},
): Promise<TestStack> {
  const stack = await startStack({ port: 0, ephemeralPorts: true, logLevel: process.env.TEST_LOG_LEVEL ?? 'silent', replicas: E2E_REPLICAS, ...opts });
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
      return call(opts.baseUrl ?? stack.baseUrl, method, path, body, { ...(key ? { authorization: `Bearer ${key}` } : {}), ...opts.headers });
    },
    gatewayUrls: () => stack.gateways.map((g) => g.url),
    async rollingRestart(between = async () => undefined) {
      const steps: string[] = [];
      for (const name of SERVICE_NAMES) {
        for (let i = 0; i < stack.instances[name].length; i++) {
          await stack.restart(name, i);
          steps.push(`${name}-${i + 1}`);
          // What a Deployment's minReadySeconds gives: the clients reconnect to the new instance
          // (within their longest reconnect backoff) before the next instance goes.
          await new Promise((resolve) => setTimeout(resolve, MIN_READY_MS));
          await between(steps.at(-1)!);
        }
      }
      for (let i = 0; i < stack.gateways.length; i++) {
        await stack.restart('gateway', i);
        steps.push(`gateway-${i + 1}`);
        await between(steps.at(-1)!);
      }
      return steps;
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
