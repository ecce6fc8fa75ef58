// Fairness between tenants: a workspace (one mode of it) may have at most its plan's
// `workspaceConcurrency` requests in flight on this gateway replica. A noisy tenant's excess is
// refused at once with 429 rate_limited, before it reaches a service, so it can neither queue
// up in front of other tenants' requests nor make the upstream time out and trip the breaker
// every tenant shares. The count is per replica (the store would add a round trip to every
// request for a number that changes every millisecond): with R replicas a workspace may have up
// to R x workspaceConcurrency requests in flight in total, which docs/running.md states.
import type { RequestHandler } from 'express';
import { AppError } from '@vrp/platform/errors';
import { requestState } from '../request-state';

export class WorkspaceConcurrency {
  private readonly inFlight = new Map<string, number>();

  /** Requests of a workspace in flight now (tests and metrics). */
  current(workspaceId: string): number {
    return this.inFlight.get(workspaceId) ?? 0;
  }

  middleware(): RequestHandler {
    return (req, res, next) => {
      const state = requestState(req);
      const principal = state.principal;
      if (!principal || !state.limits) {
        next();
        return;
      }
      const workspaceId = principal.workspaceId;
      const max = state.limits.workspaceConcurrency;
      const current = this.current(workspaceId);
      if (current >= max) {
        throw new AppError('rate_limited', `Too many concurrent requests: this workspace already has ${max} requests in progress.`, { retryAfterSeconds: 1 });
      }
      this.inFlight.set(workspaceId, current + 1);
      let released = false;
      // 'close' fires once the response is done or the connection dropped, whichever is first.
      res.on('close', () => {
        if (released) return;
        released = true;
        const left = this.current(workspaceId) - 1;
        if (left <= 0) this.inFlight.delete(workspaceId);
        else this.inFlight.set(workspaceId, left);
      });
      next();
    };
  }
}
