// Crash safety of the embedded stack with DATA_DIR: the stack runs in a child process under a
// mixed write load (reservations created, patched and cancelled, guests created) with a webhook
// subscription to a local receiver, and is killed with SIGKILL at a random moment (after a random
// number of acknowledged writes), CRASH_ROUNDS times (12 in `pnpm test`, 40 in `pnpm fuzz`).
// After every restart:
//   - every write answered 2xx before the kill is readable, with its acknowledged state (or the
//     state of the one write per client that was in flight when the process died);
//   - no transaction is half applied: a reservation and the event of its creation are written in
//     one transaction (store + outbox), so every acknowledged write's event reaches the receiver;
//   - every event of an acknowledged write is delivered to the receiver at least once.
// Black box: HTTP only (API, admin API); the child is the stack's own startStack in a bundle.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, bundleChild, startChild, type Child } from './support/crash-process';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 12);
const CLIENTS = 4;

interface Reservation {
  id: string;
  status: string;
  notes?: { host?: string };
}

/** What the test knows of a reservation: its acknowledged state, and a write that may or may not have landed. */
interface Expected {
  status: string;
  note: string;
  inFlight: { status: string; note: string } | null;
}

describe(`crash safety: SIGKILL under write load, ${ROUNDS} rounds`, () => {
  jest.setTimeout(Math.max(280_000, ROUNDS * 14_000));
  let dir = '';
  let receiver: WebhookReceiver;
  let child: Child | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vrp-crash-'));
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    if (child && child.proc.exitCode === null) {
      child.proc.kill('SIGKILL');
      await child.exited;
    }
    await receiver?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('loses no acknowledged write, half-applies no transaction, and delivers every acknowledged event', async () => {
    const entry = await bundleChild(dir);
    const dataDir = join(dir, 'data');
    const reservations = new Map<string, Expected>();
    const guests = new Set<string>();
    /** Events an acknowledged write must produce: `${type} ${reservationId} ${note}`. */
    const expectedEvents = new Set<string>();
    let dateSeq = 0;
    let noteSeq = 0;
    let listingIds: string[] = [];

    const eventKeys = (): Set<string> => {
      const keys = new Set<string>();
      for (const r of receiver.received) {
        const obj = r.json.data.object as { id?: string; notes?: { host?: string } };
        keys.add(`${r.json.type} ${String(obj.id)}`);
        if (obj.notes?.host) keys.add(`${r.json.type} ${String(obj.id)} ${obj.notes.host}`);
      }
      return keys;
    };

    const verify = async (c: Child): Promise<void> => {
      for (const [id, want] of reservations) {
        const res = await api<{ data: Reservation }>(c.baseUrl, 'GET', `/v1/reservations/${id}`);
        expect(res.status).toBe(200);
        const got = { status: res.body.data.status, note: res.body.data.notes?.host ?? '' };
        const allowed = [{ status: want.status, note: want.note }, ...(want.inFlight ? [want.inFlight] : [])];
        expect(allowed).toContainEqual(got);
        // Whatever landed is now the known state.
        reservations.set(id, { ...got, inFlight: null });
      }
      for (const id of guests) expect((await api(c.baseUrl, 'GET', `/v1/guests/${id}`)).status).toBe(200);
    };

    /** One client: create a reservation, patch it, sometimes cancel it, create a guest; until stopped. */
    const client = async (c: Child, stop: { now: boolean }, acked: () => void): Promise<void> => {
      while (!stop.now) {
        try {
          const n = dateSeq++;
          const listing = listingIds[n % listingIds.length] as string;
          const day = new Date(Date.UTC(2031, 0, 1) + Math.floor(n / listingIds.length) * 3 * 86_400_000);
          const checkIn = day.toISOString().slice(0, 10);
          const checkOut = new Date(day.getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
          const created = await api<{ data: Reservation }>(c.baseUrl, 'POST', '/v1/reservations', {
            propertyId: listing,
            checkIn,
            checkOut,
            primaryGuest: { firstName: `Crash${n}` },
            source: 'DIRECT',
          });
          if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
          const id = created.body.data.id;
          reservations.set(id, { status: created.body.data.status, note: created.body.data.notes?.host ?? '', inFlight: null });
          expectedEvents.add(`reservation.created ${id}`);
          acked();

          const note = `n${noteSeq++}`;
          const want = reservations.get(id) as Expected;
          want.inFlight = { status: 'PENDING', note };
          const patched = await api<{ data: Reservation }>(c.baseUrl, 'PATCH', `/v1/reservations/${id}`, { status: 'PENDING', notes: { host: note } });
          if (patched.status !== 200) throw new Error(`patch answered ${patched.status}`);
          reservations.set(id, { status: 'PENDING', note, inFlight: null });
          expectedEvents.add(`reservation.updated ${id} ${note}`);
          acked();

          if (n % 3 === 0) {
            (reservations.get(id) as Expected).inFlight = { status: 'CANCELLED', note };
            const cancelled = await api(c.baseUrl, 'POST', `/v1/reservations/${id}/cancel`);
            if (cancelled.status !== 200) throw new Error(`cancel answered ${cancelled.status}`);
            reservations.set(id, { status: 'CANCELLED', note, inFlight: null });
            expectedEvents.add(`reservation.cancelled ${id}`);
            acked();
          }

          const guest = await api<{ data: { id: string } }>(c.baseUrl, 'POST', '/v1/guests', { firstName: `Guest${n}` });
          if (guest.status !== 201) throw new Error(`guest answered ${guest.status}`);
          guests.add(guest.body.data.id);
          acked();
        } catch (err) {
          if (stop.now) return; // the process was killed under this request: not acknowledged
          throw err;
        }
      }
    };

    for (let round = 0; round <= ROUNDS; round++) {
      child = await startChild(entry, dataDir);
      const c = child;
      if (round === 0) {
        // First start on an empty directory: the demo data is seeded.
        expect(c.demo).not.toBeNull();
        listingIds = c.demo!.listingIds.slice(0, 2);
        const sub = await api<{ data: { id: string } }>(c.baseUrl, 'POST', '/v1/webhooks', { url: receiver.url, eventTypes: ['*'] });
        expect(sub.status).toBe(201);
      } else {
        // Restarts load the data instead of seeding again.
        expect(c.demo).toBeNull();
        await verify(c);
      }
      if (round === ROUNDS) break;

      // Kill after a random number of acknowledged writes, with the clients still writing.
      const killAfter = 3 + Math.floor(Math.random() * 20);
      let ackedThisRound = 0;
      const stop = { now: false };
      let reachTarget: () => void = () => undefined;
      const target = new Promise<void>((resolve) => (reachTarget = resolve));
      const onAck = () => {
        ackedThisRound += 1;
        if (ackedThisRound >= killAfter) reachTarget();
      };
      const clients = Array.from({ length: CLIENTS }, () => client(c, stop, onAck));
      const failed = Promise.all(clients).then(() => {
        if (!stop.now) throw new Error('clients stopped before the kill');
      });
      await Promise.race([target, failed]);
      stop.now = true;
      c.proc.kill('SIGKILL');
      await c.exited;
      await Promise.all(clients);
    }

    // The last start is running: every acknowledged write's event arrives, at least once.
    const c = child!;
    const allArrived = () => {
      const got = eventKeys();
      return [...expectedEvents].every((k) => got.has(k));
    };
    // Woken by each arrival (no polling loop competing with the child for the CPU).
    const arrived = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(allArrived()), 120_000);
      const check = () => {
        if (!allArrived()) return;
        clearTimeout(timer);
        resolve(true);
      };
      receiver.onReceive = check;
      check();
    });
    if (!arrived) {
      const got = eventKeys();
      const missing = [...expectedEvents].filter((k) => !got.has(k));
      throw new Error(
        `${missing.length} of ${expectedEvents.size} events of acknowledged writes never arrived, e.g. ${missing.slice(0, 5).join(', ')}\n${c.output().slice(-2000)}`,
      );
    }
    expect(expectedEvents.size).toBeGreaterThan(ROUNDS * 3);
    c.proc.kill('SIGKILL');
    await c.exited;
  });
});
