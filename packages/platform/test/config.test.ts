// The configuration rules every process shares: secrets from <NAME>_FILE, the refusal of the
// embedded engines in production, and --help generated from the schema that parses.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { checkEngineConfig, ConfigError, describeConfig, parseConfig, renderConfigHelp, secret } from '../src/config';
import { serviceSchema } from '../src/service';

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  TOKEN: secret(z.string().min(16, 'must be at least 16 characters'), 'the token'),
  URL: secret(z.string().url().optional()),
  NAME: z.string().default('x'),
});
const dir = mkdtempSync(join(tmpdir(), 'vrp-config-'));
const file = (name: string, content: string): string => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('no ConfigError');
};

describe('secrets from files', () => {
  it('reads a secret from <NAME>_FILE, dropping the trailing newline', () => {
    const cfg = parseConfig(schema, { TOKEN_FILE: file('token', 'a-token-of-twenty-chars\n'), URL_FILE: file('url', 'mongodb://u:p@h:27017/') });
    expect(cfg.TOKEN).toBe('a-token-of-twenty-chars');
    expect(cfg.URL).toBe('mongodb://u:p@h:27017/');
  });

  it('validates the file content like the variable itself', () => {
    expect(problemsOf(() => parseConfig(schema, { TOKEN_FILE: file('short', 'short') }))).toEqual(['TOKEN: must be at least 16 characters']);
  });

  it('refuses a secret given both ways, naming both variables', () => {
    const problems = problemsOf(() => parseConfig(schema, { TOKEN: 'a-token-of-twenty-chars', TOKEN_FILE: file('t2', 'another-token-of-twenty') }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^TOKEN and TOKEN_FILE: both are set/);
  });

  it('names an unreadable file', () => {
    expect(problemsOf(() => parseConfig(schema, { TOKEN_FILE: join(dir, 'missing') }))[0]).toMatch(/^TOKEN_FILE: cannot read .*missing \(ENOENT\)/);
  });

  it('reads no file for a variable that is not a secret', () => {
    expect(parseConfig(schema, { TOKEN: 'a-token-of-twenty-chars', NAME_FILE: file('name', 'from-file') }).NAME).toBe('x');
  });
});

describe('embedded engines in production', () => {
  const base = { STORE: 'memory', BUS: 'memory', NODE_ENV: 'production' };

  it('refuses STORE=memory and BUS=memory with NODE_ENV=production, naming what to set', () => {
    const [problem] = problemsOf(() => checkEngineConfig(base));
    expect(problem).toContain('STORE=memory, BUS=memory: refused with NODE_ENV=production');
    for (const name of ['STORE=mongo', 'MONGO_URL', 'BUS=kafka', 'KAFKA_BROKERS', 'ALLOW_EMBEDDED_ENGINES=true', 'DATA_DIR']) expect(problem).toContain(name);
  });

  it('refuses one memory engine alone too', () => {
    const [problem] = problemsOf(() => checkEngineConfig({ ...base, STORE: 'mongo', MONGO_URL: 'mongodb://h/' }));
    expect(problem).toMatch(/^BUS=memory: refused/);
    expect(problem).not.toContain('STORE=mongo');
  });

  it('needs a DATA_DIR when the operator allows them', () => {
    expect(problemsOf(() => checkEngineConfig({ ...base, ALLOW_EMBEDDED_ENGINES: 'true' }))[0]).toMatch(/^DATA_DIR: required with ALLOW_EMBEDDED_ENGINES=true/);
    expect(() => checkEngineConfig({ ...base, ALLOW_EMBEDDED_ENGINES: 'true', DATA_DIR: '/var/lib/vrp' })).not.toThrow();
  });

  it('leaves development and the real engines alone', () => {
    expect(() => checkEngineConfig({ STORE: 'memory', BUS: 'memory', NODE_ENV: '' })).not.toThrow();
    expect(() => checkEngineConfig({ STORE: 'mongo', BUS: 'kafka', MONGO_URL: 'mongodb://h/', KAFKA_BROKERS: 'k:9092', NODE_ENV: 'production' })).not.toThrow();
  });
});

describe('--help from the schema', () => {
  it('describes each variable: type, default, required, secret', () => {
    expect(describeConfig(schema)).toEqual([
      { name: 'PORT', type: 'integer 0..65535', defaultValue: '8080', required: false, secret: false, description: '' },
      { name: 'TOKEN', type: 'string, at least 16 characters', defaultValue: undefined, required: true, secret: true, description: 'the token' },
      { name: 'URL', type: 'URL', defaultValue: undefined, required: false, secret: true, description: '' },
      { name: 'NAME', type: 'string', defaultValue: 'x', required: false, secret: false, description: '' },
    ]);
    const help = renderConfigHelp('prog', schema);
    expect(help).toMatch(/TOKEN +string, at least 16 characters; required; secret, or TOKEN_FILE/);
    expect(help).toMatch(/PORT +integer 0\.\.65535; default "8080"/);
  });

  it('covers every variable a service parses', () => {
    const full = serviceSchema({ name: 'x', prefix: 'X', defaults: { grpc: 1, ops: 2, db: 'd' } });
    const help = renderConfigHelp('x', full);
    for (const name of Object.keys(full.shape)) expect(help).toContain(`  ${name} `);
    expect(describeConfig(full).find((v) => v.name === 'MONGO_URL')).toMatchObject({ secret: true, required: false });
  });
});
