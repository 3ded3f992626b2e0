import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrap } from '../../src/services/projects/bootstrap.ts';
import { openStore } from '../../src/storage/open-store.ts';

const BIN = join(import.meta.dirname, '../../bin/flagstaff.js');
const FIXTURES = join(import.meta.dirname, '../fixtures');
const NEGATIVE = join(FIXTURES, 'flagd-schema/test/flags/negative/state-set-incorrectly.json');
/** The document an operator imports: a boolean flag with targeting and a string flag. */
const DOCUMENT_FILE = join(FIXTURES, 'flagd/show-banner-and-tagline.json');
const DOCUMENT_TEXT = readFileSync(DOCUMENT_FILE, 'utf8');
const DOCUMENT = JSON.parse(DOCUMENT_TEXT);
/** A flag whose targeting names an evaluator the document lacks. */
const UNRESOLVED_REF = join(FIXTURES, 'flagd/unresolved-ref.json');

/** `flagstaff import|export …` as an operator runs it, against a SQLite file of its own. */
describe('flagstaff import and export (the CLI)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-flagd-cli-'));
  const database = join(dir, 'flagstaff.db');
  const run = (...args: string[]) => {
    const result = spawnSync(process.execPath, [BIN, ...args], {
      env: { ...process.env, FLAGSTAFF_DATABASE_URL: `sqlite:${database}`, FLAGSTAFF_LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      input: DOCUMENT_TEXT,
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  beforeAll(async () => {
    const store = await openStore(`sqlite:${database}`);
    await bootstrap(store, 'fsk_cli-test-admin-key-0123456789abcdefghijkl');
    await store.close();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports a file into an environment and says what it did', () => {
    const result = run('import', '--project', 'default', '--environment', 'development', DOCUMENT_FILE);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Imported into default/development');
    expect(result.stdout).toMatch(/created:\s+show-banner, tagline/);
  });

  it('imports from standard input, and a second time changes nothing', () => {
    const result = run('import', '--project', 'default', '--environment', 'development', '-');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/unchanged:\s+show-banner, tagline/);
  });

  it('exports to standard output and to a file, the document that went in', () => {
    const out = run('export', '--project', 'default', '--environment', 'development');
    expect(out.code).toBe(0);
    const exported = JSON.parse(out.stdout);
    expect(exported.$schema).toBe('https://flagd.dev/schema/v0/flags.json');
    expect(exported.flags).toEqual(DOCUMENT.flags);
    const file = join(dir, 'out.json');
    const toFile = run('export', '-p', 'default', '-e', 'development', file);
    expect(toFile.code).toBe(0);
    expect(toFile.stdout).toBe('');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(exported);
  });

  it('prints what flagd cannot express as warnings, on standard error', () => {
    const out = run('export', '--project', 'default', '--environment', 'production');
    expect(out.code).toBe(0);
    // Imported flags are disabled in the other environments, serving their off variant: flagd cannot.
    expect(out.stderr).toMatch(/^warning: show-banner: disabled/m);
    expect(JSON.parse(out.stdout).flags['show-banner'].state).toBe('DISABLED');
  });

  it('refuses an invalid document with exit code 1, naming each problem', () => {
    const result = run('import', '--project', 'default', '--environment', 'production', NEGATIVE);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^The flagd document is not valid: /);
    expect(result.stderr).toMatch(/^ {2}\/flags\/myBoolFlag\/state: /m);
  });

  it('refuses a file that is not JSON, an unknown environment, and missing options', () => {
    writeFileSync(join(dir, 'broken.json'), '{"flags": ');
    const broken = run(
      'import',
      '--project',
      'default',
      '--environment',
      'production',
      join(dir, 'broken.json'),
    );
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/is not a JSON document/);
    const unknown = run('export', '--project', 'default', '--environment', 'staging');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No environment "staging"/);
    const usage = run('import', DOCUMENT_FILE);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(
      /flagstaff import --project P --environment E \[--strict\] \[--bypass-approvals\] FILE/,
    );
  });

  it('records the operator in the audit log', async () => {
    const store = await openStore(`sqlite:${database}`);
    try {
      const project = await store.findProject('default');
      const events = await store.listAuditEvents(
        project?.id as string,
        { action: 'flag.created' },
        { limit: 10 },
      );
      expect(events.items.length).toBe(2);
      expect(events.items[0]?.actor).toMatchObject({
        type: 'user',
        id: 'cli',
        name: expect.stringMatching(/\(command line\)$/),
      });
      expect(events.items[0]?.environment).toBe('development');
    } finally {
      await store.close();
    }
  });

  it('imports a flag whose targeting cannot work with a warning, and --strict refuses it', () => {
    const args = ['import', '--project', 'default', '--environment', 'development'];
    const strict = run(...args, '--strict', UNRESOLVED_REF);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('flag "broken-flag": $ref names no evaluator: "nowhere"');
    const lenient = run(...args, UNRESOLVED_REF);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toMatch(/created:\s+broken-flag/);
    expect(lenient.stderr).toContain(
      'warning: broken-flag: /flags/broken-flag/targeting/if/0: $ref names no evaluator: "nowhere" (the flag evaluates with PARSE_ERROR)',
    );
  });
});
