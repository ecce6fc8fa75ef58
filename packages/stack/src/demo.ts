// The demo data of the embedded stack: one workspace with a fixed test key (the same on every
// start, so docs and scripts can use it), and listings that show both activity states.
import { listing as listingPb, type pms } from '@vrp/contracts';
import type { Gateway } from '@vrp/gateway';
import type { Upstream } from '@vrp/platform/grpc';
import type { SimulatorControl } from '@vrp/pms-simulator';

export const DEMO_API_KEY = 'sk_test_demo0000000000000000000000000000';
export const DEMO_WORKSPACE_NAME = 'Demo Property Co';

/**
 * The demo workspace's plan: generous rate limits, so the benchmarks and tests that drive the
 * demo key measure the services rather than the limiter (other workspaces get the defaults).
 */
export const DEMO_RATE_LIMITS = {
  keyRequestsPerSecond: 2000,
  keyBurst: 4000,
  workspaceRequestsPerSecond: 2000,
  workspaceBurst: 4000,
  workspaceConcurrency: 256,
};

export interface DemoSeed {
  workspaceId: string;
  /** Where the demo (test-key) data lives: the workspace's test-mode sandbox. */
  dataWorkspaceId: string;
  apiKey: string;
  listingIds: string[];
}

const DEMO_LISTINGS: { listing: Partial<listingPb.Listing>; inactive: boolean }[] = [
  {
    listing: {
      name: 'Sea View Apartment',
      channels: [{ channel: 'CHANNEL_A', externalId: 'cha-1001' }],
      address: { line1: 'Rua do Mar 12', line2: '', city: 'Lisbon', region: '', postalCode: '1100-001', country: 'PT' },
      timezone: 'Europe/Lisbon',
      currency: 'EUR',
      maxGuests: 4,
      bedrooms: 2,
      bathrooms: 1,
      beds: 3,
      defaultNightlyPrice: 140,
      cleaningFee: 45,
      taxRate: 0.06,
    },
    inactive: false,
  },
  {
    listing: {
      name: 'Old Town Loft',
      channels: [{ channel: 'CHANNEL_B', externalId: 'chb-2002' }],
      address: { line1: 'Calle Mayor 3', line2: '2B', city: 'Madrid', region: '', postalCode: '28013', country: 'ES' },
      timezone: 'Europe/Madrid',
      currency: 'EUR',
      maxGuests: 2,
      bedrooms: 1,
      bathrooms: 1,
      beds: 1,
      defaultNightlyPrice: 95,
      cleaningFee: 30,
      taxRate: 0.1,
    },
    inactive: false,
  },
  {
    listing: {
      name: 'Mountain Cabin',
      channels: [{ channel: 'CHANNEL_C', externalId: 'chc-3003' }],
      address: { line1: 'Chemin des Alpes 7', line2: '', city: 'Chamonix', region: '', postalCode: '74400', country: 'FR' },
      timezone: 'Europe/Paris',
      currency: 'EUR',
      maxGuests: 6,
      bedrooms: 3,
      bathrooms: 2,
      beds: 4,
      defaultNightlyPrice: 210,
      cleaningFee: 80,
      taxRate: 0.05,
    },
    // Imported while unlisted on its channel: starts inactive.
    inactive: true,
  },
];

/** The demo's PMS account in the simulator: PMS-A (cannot cancel reservations through its API). */
export const DEMO_PMS = { provider: 'PMS-A', accountId: 'demo' } as const;

/** Creates the demo account in the simulated PMS-A, with one listing and one reservation, and connects the workspace to it. */
async function connectDemoPms(workspaceId: string, pms: { adapter: Upstream<pms.PmsAdapterServiceClient>; simulator: SimulatorControl }): Promise<void> {
  const { provider, accountId } = DEMO_PMS;
  await seedDemoPmsAccount(pms.simulator);
  await pms.adapter.call('connect', { workspaceId, provider, accountId });
}

/** The demo account's data in the simulated PMS-A (the PMS side only: nothing in our stores). */
export async function seedDemoPmsAccount(simulator: SimulatorControl): Promise<void> {
  const { provider, accountId } = DEMO_PMS;
  await simulator.createAccount(provider, accountId);
  await simulator.putListing(provider, accountId, 'riverside', {
    name: 'Riverside Studio (managed in PMS-A)',
    listed: true,
    channels: [{ channel: 'CHANNEL_A', listing_id: 'cha-4004' }],
    timezone: 'Europe/Lisbon',
    currency: 'EUR',
    max_guests: 2,
    base_price: 120,
    cleaning_fee: 35,
  });
  const year = new Date().getUTCFullYear() + 1;
  await simulator.putReservation(provider, accountId, 'booking-1', {
    listing_id: 'riverside',
    arrival: `${year}-06-10`,
    departure: `${year}-06-14`,
    source: 'CHANNEL_A',
    guest: { first_name: 'Marta', last_name: 'Silva', email: 'marta@example.com' },
    adults: 2,
    total: 515,
    currency: 'EUR',
  });
}

export async function seedDemo(deps: {
  gateway: Gateway;
  listing: Upstream<listingPb.ListingServiceClient>;
  /** When given, the demo workspace is also connected to a simulated PMS account. */
  pms?: { adapter: Upstream<pms.PmsAdapterServiceClient>; simulator: SimulatorControl };
}): Promise<DemoSeed> {
  // The demo key is a test key: its listings, reservations and PMS connection live in the
  // workspace's test-mode sandbox (dataWorkspaceId), where the services see them.
  const { workspace, workspaceCreated, dataWorkspaceId } = await deps.gateway.bootstrapWorkspace({
    name: DEMO_WORKSPACE_NAME,
    activeListingLimit: 5,
    rateLimits: DEMO_RATE_LIMITS,
    mode: 'test',
    key: DEMO_API_KEY,
  });
  const listingIds: string[] = [];
  if (workspaceCreated) {
    for (const { listing, inactive } of DEMO_LISTINGS) {
      const { listing: created } = await deps.listing.call('createListing', {
        workspaceId: dataWorkspaceId,
        listing: listingPb.Listing.create(listing),
        inactive,
      });
      listingIds.push(created!.id);
    }
    if (deps.pms) await connectDemoPms(dataWorkspaceId, deps.pms);
  }
  return { workspaceId: workspace.id, dataWorkspaceId, apiKey: DEMO_API_KEY, listingIds };
}
