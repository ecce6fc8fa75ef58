// Writes docs/configuration.md from the zod schemas the processes parse their environment with
// (the same text as each one's `--help`), or with --check fails when the file differs from
// them (`pnpm lint` runs the check, so the page cannot drift from the code).
//   node scripts/run-bundled.mjs scripts/config-doc.ts [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderConfigMarkdown } from '../packages/platform/src/config';
import { serviceSchema, type ServiceDefinition } from '../packages/platform/src/service';
import { gatewayConfigSchema } from '../services/gateway/src/config';
import { guestService } from '../services/guest/src/config';
import { listingService } from '../services/listing/src/config';
import { pmsAdapterService } from '../services/pms-adapter/src/config';
import { reservationService } from '../services/reservation/src/config';
import { webhookService } from '../services/webhook/src/config';

const FILE = join(__dirname, '..', 'docs', 'configuration.md');
const services: ServiceDefinition[] = [listingService, reservationService, guestService, pmsAdapterService, webhookService] as ServiceDefinition[];
const sections: { title: string; schema: ReturnType<typeof serviceSchema> }[] = [
  { title: 'gateway', schema: gatewayConfigSchema },
  ...services.map((def) => ({ title: def.name, schema: serviceSchema(def) })),
];

const text = `# Configuration of the deployable processes

<!-- Generated from the zod schemas that parse each process's environment by
scripts/config-doc.ts (node scripts/run-bundled.mjs scripts/config-doc.ts); \`pnpm lint\` fails
when this file differs from them. Do not edit by hand. -->

Each process is configured by environment variables only, and prints this list itself:
\`node dist/main.js --help\` (in an image) or \`node services/<name>/dist/main.js --help\` (after
\`pnpm build\`). A variable marked secret is also read from a file: \`<NAME>_FILE=/path\` (the
Docker and Kubernetes convention; the chart and docker-compose.yml give every secret this way);
a secret given both ways stops the process with both names. What each variable means in a
deployment: [operations.md](operations.md#configuration-reference).

${sections.map((s) => `## ${s.title}\n\n${renderConfigMarkdown(s.schema)}\n`).join('\n')}`;

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(FILE, 'utf8');
  } catch {
    // missing: reported below
  }
  if (current !== text) {
    console.error('docs/configuration.md differs from the configuration schemas: run `node scripts/run-bundled.mjs scripts/config-doc.ts` and commit it');
    process.exit(1);
  }
  console.log('docs/configuration.md matches the configuration schemas');
} else {
  writeFileSync(FILE, text);
  console.log(`wrote ${FILE}`);
}
