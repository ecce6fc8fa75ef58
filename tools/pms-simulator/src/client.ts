// A small HTTP client of the simulator's control API, for tests, benchmarks and the embedded
// stack's demo seed: change data "in the PMS", inject faults, read the PMS's request log.
import type { Fault, LoggedRequest, Refusal } from './server';
import type { PmsGuest, PmsListing, PmsMessage, PmsRequest, PmsReservation, PmsReview } from './state';

type Person = Partial<PmsRequest['guest']>;

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

  putReservation(
    provider: string,
    accountId: string,
    id: string,
    reservation: Partial<Omit<PmsReservation, 'guest'>> & { guest?: Partial<PmsReservation['guest']> },
  ): Promise<PmsReservation> {
    return this.call(
      'PUT',
      `/${SimulatorControl.slug(provider)}/accounts/${encodeURIComponent(accountId)}/reservations/${encodeURIComponent(id)}`,
      reservation,
    );
  }

  putGuest(provider: string, accountId: string, id: string, guest: Partial<PmsGuest>): Promise<PmsGuest> {
    return this.call('PUT', `/${SimulatorControl.slug(provider)}/accounts/${encodeURIComponent(accountId)}/guests/${encodeURIComponent(id)}`, guest);
  }

  private entityPath(provider: string, accountId: string, kind: string, id: string): string {
    return `/${SimulatorControl.slug(provider)}/accounts/${encodeURIComponent(accountId)}/${kind}/${encodeURIComponent(id)}`;
  }

  /** A guest writes a message on a channel (author `guest`; `host` for one the host wrote in the PMS). */
  receiveMessage(
    provider: string,
    accountId: string,
    id: string,
    message: {
      listing_id: string;
      thread_id?: string;
      reservation_id?: string;
      author?: 'guest' | 'host';
      text: string;
      attachments?: { url: string; filename?: string; mime_type?: string }[];
      channel?: string;
    },
  ): Promise<PmsMessage> {
    return this.call('PUT', this.entityPath(provider, accountId, 'messages', id), message);
  }

  /** A channel posts a review (or the guest edits it). */
  putReview(provider: string, accountId: string, id: string, review: Partial<Omit<PmsReview, 'response'>>): Promise<PmsReview> {
    return this.call('PUT', this.entityPath(provider, accountId, 'reviews', id), review);
  }

  /** A booking request or an inquiry arrives from a channel (or changes). */
  putRequest(provider: string, accountId: string, id: string, request: Partial<Omit<PmsRequest, 'guest'>> & { guest?: Person }): Promise<PmsRequest> {
    return this.call('PUT', this.entityPath(provider, accountId, 'requests', id), request);
  }

  /** The PMS refuses the next `count` writes of `kind` (fault injection; cleared by clearFaults). */
  refuseNext(provider: string, refusal: Refusal): Promise<unknown> {
    return this.call('PUT', `/faults/${SimulatorControl.slug(provider)}/refusals`, refusal);
  }

  account(
    provider: string,
    accountId: string,
  ): Promise<{
    listings: PmsListing[];
    reservations: PmsReservation[];
    guests: PmsGuest[];
    messages: PmsMessage[];
    reviews: PmsReview[];
    requests: PmsRequest[];
    changes: number;
  }> {
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
