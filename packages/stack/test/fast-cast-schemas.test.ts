// The embedded engine's fast caster on the services' own schemas: on random documents it gives
// what mongoose gives or leaves the document to mongoose (packages/engines/src/store/memory/fast-cast.ts;
// the engines' test covers every kind of path and validator on schemas of its own).
import { Schema } from 'mongoose';
import { compareWithMongoose } from '@vrp/engines/fast-cast-check';
import { appliedRequestSchema } from '@vrp/platform/applied-requests';
import * as gateway from '@vrp/gateway/src/store/schemas';
import * as guest from '@vrp/guest/src/store/schemas';
import * as listing from '@vrp/listing/src/store/schemas';
import * as listingData from '@vrp/listing/src/store/data-schemas';
import * as pmsAdapter from '@vrp/pms-adapter/src/store/schemas';
import * as reservation from '@vrp/reservation/src/store/schemas';
import * as webhook from '@vrp/webhook/src/store/schemas';

/** `pnpm fuzz` casts three times as many random documents (FAST_CAST_RUNS_SCALE=3). */
const RUNS_SCALE = Number(process.env.FAST_CAST_RUNS_SCALE ?? 1);

const modules: Record<string, Record<string, unknown>> = {
  gateway,
  guest,
  listing,
  listingData,
  pmsAdapter,
  reservation,
  webhook,
  platform: { appliedRequestSchema },
};
// Custom validators: every document of these goes to mongoose.
const MONGOOSE_ONLY = new Set(['gateway.workspaceSchema']);

describe('fast caster on the services schemas', () => {
  for (const [module, exported] of Object.entries(modules)) {
    for (const [name, schema] of Object.entries(exported)) {
      if (!(schema instanceof Schema) || MONGOOSE_ONLY.has(`${module}.${name}`)) continue;
      it(`${module}.${name}: gives what mongoose gives, or defers to it`, () => {
        const { taken, accepted } = compareWithMongoose(`${module}_${name}`, schema, Math.ceil(200 * RUNS_SCALE), name.length * 31 + module.length);
        // Random documents of a schema with many required or patterned fields are mostly invalid.
        if (accepted > 0) expect(taken).toBeGreaterThan(0);
      });
    }
  }
});
