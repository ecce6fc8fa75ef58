// A workspace's settings (`workspace_settings`), read by every write the booking rule decides.
import { storedWorkspaceSettings, type WorkspaceSettings } from '@vrp/api-model';
import type { Collection, DocumentStore, Tx } from '@vrp/platform/store';
import { workspaceSettingsDocSchema } from './schemas';

type SettingsDoc = { _id: string; settings: Record<string, unknown>; updatedAt: Date; [field: string]: unknown };

export class SettingsStore {
  readonly settings: Collection<SettingsDoc>;

  constructor(store: DocumentStore) {
    this.settings = store.collection<SettingsDoc>({ name: 'workspace_settings', schema: workspaceSettingsDocSchema });
  }

  /** The workspace's settings, defaults where none were set. */
  async of(workspaceId: string, tx?: Tx): Promise<WorkspaceSettings> {
    const doc = await this.settings.findOne({ _id: workspaceId }, { tx });
    return storedWorkspaceSettings(doc?.settings);
  }

  /** Replaces the workspace's settings (already checked against the schema). */
  async replace(workspaceId: string, settings: WorkspaceSettings, at: Date): Promise<WorkspaceSettings> {
    await this.settings.updateOne({ _id: workspaceId }, { $set: { settings: { ...settings }, updatedAt: at } }, { upsert: true });
    return settings;
  }
}
