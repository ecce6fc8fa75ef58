// The SDK examples of the READMEs (README.md's and sdk/typescript/README.md's ```ts blocks) are compiled by the
// TypeScript compiler, strict, against the SDK's types, and run one after another against a
// running stack, so the README cannot show code that does not compile or does not work.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as sdk from '@vrp/sdk';
import { startTestStack, type TestStack } from './support/stack';
import { compileErrors, toCommonJs } from './support/typescript';

const tsBlocks = (file: string): string[] => [...readFileSync(join(__dirname, '..', file), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
/** The repository README's SDK example first, then the SDK README's. */
const blocks = [...tsBlocks('README.md'), ...tsBlocks('sdk/typescript/README.md')];

/** Runs a block: transpiled to CommonJS inside an async function, `@vrp/sdk` being the SDK's source. */
async function run(code: string, env: Record<string, string>, log: string[]): Promise<void> {
  const js = toCommonJs(code);
  const nodeRequire = createRequire(__filename);
  const requireFor = (id: string): unknown => (id === '@vrp/sdk' ? sdk : nodeRequire(id));
  const capture = { ...console, log: (...args: unknown[]) => void log.push(args.map(String).join(' ')) };
  const process_ = { ...process, env: { ...process.env, ...env } };
  const fn = new Function('exports', 'require', 'module', 'console', 'process', `return (async () => {\n${js}\n})();`) as (...args: unknown[]) => Promise<void>;
  await fn({}, requireFor, { exports: {} }, capture, process_);
}

describe('SDK README examples', () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await startTestStack();
  });
  afterAll(async () => t?.stop());

  it('has examples, and every one compiles without an error', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    expect(compileErrors(blocks)).toEqual([]);
  }, 60_000);

  it('runs every example against the stack', async () => {
    const env = { VRP_BASE_URL: t.baseUrl, VRP_API_KEY: t.apiKey };
    const logs: string[][] = [];
    for (const block of blocks) {
      const log: string[] = [];
      await run(block, env, log);
      logs.push(log);
    }
    // What each example prints: the demo listings, a booking and its refused twin, an update, a verified event.
    const [main, ...sdkLogs] = logs;
    expect(main).toEqual([
      expect.stringMatching(/^Sea View Apartment \d+(,\d+)+$/),
      expect.stringMatching(/^Old Town Loft \d+(,\d+)+$/),
      expect.stringMatching(/^Mountain Cabin is inactive: lst_/),
    ]);
    expect(sdkLogs[0]).toEqual(
      expect.arrayContaining([expect.stringContaining('Sea View Apartment active'), expect.stringContaining('Mountain Cabin inactive')]),
    );
    expect(sdkLogs[1]).toEqual([
      expect.stringMatching(/^quoted \d+/),
      expect.stringMatching(/^booked [A-Z0-9]{8} null$/),
      'taken nights 2032-05-01,2032-05-02,2032-05-03',
    ]);
    expect(sdkLogs[2]).toEqual([expect.stringMatching(/^HOPPER \d+$/)]);
    expect(sdkLogs[3]).toEqual([expect.stringMatching(/^guest\.created evt_/)]);
    // A dry run, then the newest event pulled: the guest the webhook example created.
    expect(sdkLogs[4]).toEqual(['would book 2032-07-01 CONFIRMED', 'guest.created true']);
  }, 60_000);
});
