// The settings of a workspace (PUT /admin/v1/workspaces/{id}/settings): one field each, with its
// type, its default and its description; the admin API validates with this schema, the OpenAPI
// reference is generated from it, and the reservation service stores and applies the settings
// (they reach it as this schema's JSON, so a new setting needs no proto or wiring change: its
// rule reads it from the `WorkspaceSettings` the booking rule is given, see docs/reservations.md).
// Every setting is off (or neutral) by default.
import { z } from 'zod';
import { component } from './common';

export const workspaceSettingsSchema = component(
  'WorkspaceSettings',
  'Settings of a workspace, for live mode and its test-mode sandbox alike. A setting left out takes its default.',
  z.strictObject({
    bufferNights: z
      .boolean()
      .default(false)
      .describe(
        'A stay needs one free night before and after it: a create, quote, date change, move or un-cancel made through the API is refused (409 dates_unavailable naming the night) while another stay holds the night before its check-in or the night of its check-out. On listings with and without a PMS; a booking a PMS reports is never refused, but a stay made here next to it keeps the buffer. Default false.',
      ),
  }),
);

/** A workspace's settings, every one present (defaults filled in). */
export type WorkspaceSettings = z.output<typeof workspaceSettingsSchema>;

/** The settings of a workspace nobody has set anything for. */
export const DEFAULT_WORKSPACE_SETTINGS: WorkspaceSettings = workspaceSettingsSchema.parse({});

/**
 * Settings as stored, read back: defaults for settings added since they were stored, settings no
 * longer known ignored.
 */
export function storedWorkspaceSettings(raw: unknown): WorkspaceSettings {
  return raw == null ? { ...DEFAULT_WORKSPACE_SETTINGS } : storedSettingsSchema.parse(raw);
}

/** The schema without strictness (unknown settings are dropped), built once: zod compiles a schema at its first parse. */
const storedSettingsSchema = z.object(workspaceSettingsSchema.shape);
