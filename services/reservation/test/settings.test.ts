// A workspace's settings over real gRPC with embedded engines: replaced as a whole, read back
// with defaults, kept per workspace, and checked against the WorkspaceSettings schema (input
// from the gateway is input too).
import { DEFAULT_WORKSPACE_SETTINGS } from '@vrp/api-model';
import { createMemoryBus } from '@vrp/engines/bus';
import { createMemoryStore } from '@vrp/engines/store';
import type { PmsRelay } from '@vrp/pms-relay';
import { errorOf } from '@vrp/testkit';
import type { ListingDirectory } from '../src/ports/listings';
import { SettingsStore } from '../src/store/settings-store';
import { startReservationUnderTest, type ReservationUnderTest } from './support';

describe('workspace settings over gRPC', () => {
  const bus = createMemoryBus();
  const store = createMemoryStore();
  let sut: ReservationUnderTest;
  const unused = () => Promise.reject(new Error('settings never ask another service'));
  const listings: ListingDirectory = { resolve: unused, nights: unused, stay: unused, byPmsId: unused };
  const relay: PmsRelay = { relay: unused };

  beforeAll(async () => {
    sut = await startReservationUnderTest({ store, bus, listings, relay });
  });
  afterAll(async () => {
    await sut.stop();
    await bus.close();
    await store.close();
  });

  const get = async (workspaceId: string) => JSON.parse((await sut.client.call('getWorkspaceSettings', { workspaceId })).settingsJson) as unknown;
  const set = async (workspaceId: string, settingsJson: string) =>
    JSON.parse((await sut.client.call('setWorkspaceSettings', { workspaceId, settingsJson })).settingsJson) as unknown;

  it('a workspace nobody set anything for has the defaults; a set is answered and read back as stored', async () => {
    expect(await get('ws_new')).toEqual(DEFAULT_WORKSPACE_SETTINGS);
    expect(await set('ws_set', JSON.stringify(DEFAULT_WORKSPACE_SETTINGS))).toEqual(DEFAULT_WORKSPACE_SETTINGS);
    expect(await get('ws_set')).toEqual(DEFAULT_WORKSPACE_SETTINGS);
    // Stored: the document exists now.
    expect(await new SettingsStore(store).settings.countDocuments({ _id: 'ws_set' })).toBe(1);
  });

  it('refuses what is not a setting, naming it, and what is not JSON; nothing is stored', async () => {
    const unknown = await errorOf(sut.client.call('setWorkspaceSettings', { workspaceId: 'ws_bad', settingsJson: '{"noSuchSetting":true}' }));
    expect(unknown.code).toBe('validation_failed');
    expect(unknown.details.fields).toEqual({ noSuchSetting: 'is not a workspace setting' });
    const garbage = await errorOf(sut.client.call('setWorkspaceSettings', { workspaceId: 'ws_bad', settingsJson: '{not json' }));
    expect([garbage.code, garbage.details.fields]).toEqual(['validation_failed', { settings: 'must be a JSON object' }]);
    const notObject = await errorOf(sut.client.call('setWorkspaceSettings', { workspaceId: 'ws_bad', settingsJson: '[1]' }));
    expect(notObject.code).toBe('validation_failed');
    expect(await new SettingsStore(store).settings.countDocuments({ _id: 'ws_bad' })).toBe(0);
  });
});
