// A small HTTP client of the simulator's control API, for tests, benchmarks and the embedded
// stack's demo seed: change data "in the PMS", inject faults, read the PMS's request log.
import type { Fault, LoggedRequest } from './server';
import type { PmsGuest, PmsListing, PmsReservation } from './state';

export class SimulatorControl {
  constructor(readonly baseUrl: string) {}

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.baseUrl}/_control${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`simulator ${method} ${path} answered ${res.status}: ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }

  private static slug(provider: string): string {
    return provider.toLowerCase();
  }

  createAccount(provider: string, accountId: string): Promise<{ provider: string; accountId: string }> {
    return this.call('POST', '/accounts', { provider, accountId });
  }

  /** Creates or changes a listing in the PMS (partial: absent fields keep their value). */
  putListing(provider: string, accountId: string, id: string, listing: Partial<PmsListing>): Promise<PmsListing> {
    return this.call('PUT', `/${SimulatorControl.slug(provider)}/accounts/${encodeURIComponent(accountId)}/listings/${encodeURIComponent(id)}`, listing);
  }

  putReservation(provider: string, accountId: string, id: string, reservation: Partial<Omit<PmsReservation, 'guest'>> & { guest?: Partial<PmsReservation['guest']> }): Promise<PmsReservation> {
    return this.call('PUT', `/${SimulatorControl.slug(provider)}/accounts/${encodeURIComponent(accountId)}/reservations/${encodeURIComponent(id)}`, reservation);
  }

  putGuest(provider: string, accountId: string, id: string, guest: Partial<PmsGuest>): Promise<PmsGuest> {
    return this.call('PUT', `/${SimulatorControl.slug(provider)}/accounts/${encodeURIComponent(accountId)}/guests/${encodeURIComponent(id)}`, guest);
  }

  account(provider: string, accountId: string): Promise<{ listings: PmsListing[]; reservations: PmsReservation[]; guests: PmsGuest[]; changes: number }> {
    return this.call('GET', `/${SimulatorControl.slug(provider)}/accounts/${encodeURIComponent(accountId)}`);
  }

  setFault(provider: string, fault: Fault): Promise<unknown> {
    return this.call('PUT', `/faults/${SimulatorControl.slug(provider)}`, fault);
  }

  clearFaults(): Promise<unknown> {
    return this.call('DELETE', '/faults');
  }

  async requests(filter: { provider?: string; account?: string } = {}): Promise<LoggedRequest[]> {
    const q = new URLSearchParams(Object.entries(filter).filter(([, v]) => v) as [string, string][]);
    return (await this.call<{ requests: LoggedRequest[] }>('GET', `/requests?${q.toString()}`)).requests;
  }

  clearRequests(): Promise<unknown> {
    return this.call('DELETE', '/requests');
  }
}
