import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, serve, stop } from './support.ts';

describe('flagstaff serve', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'flagstaff-'));
  const env = { FLAGSTAFF_DATABASE_URL: `sqlite:${join(dir, 'data', 'flagstaff.db')}` };
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints a generated admin key once on first start, and that key reads the default project and its two environments', async () => {
    const first = await serve(env);
    const secret = /^\s+(fsk_\S+)$/m.exec(first.output())?.[1];
    expect(secret).toBeDefined();
    const res = await fetch(`${first.url}/v1/projects/default/environments`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(res.status).toBe(200);
    const environments = (await res.json()) as { key: string }[];
    expect(environments.map(({ key }) => key).sort()).toEqual(['development', 'production']);
    await stop(first);

    const second = await serve(env);
    expect(second.output()).not.toContain(secret);
    expect(second.output()).not.toMatch(/fsk_/);
    const again = await fetch(`${second.url}/v1/projects`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(again.status).toBe(200);
    await stop(second);
  });

  it('stops with one line naming a bad variable', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, FLAGSTAFF_PORT: 'eighty' },
    });
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err.trim().split('\n')).toEqual([expect.stringContaining('FLAGSTAFF_PORT')]);
  });

  it('prints one line with the API, dashboard and docs URLs, and logs no request at info', async () => {
    const started = await serve({
      FLAGSTAFF_DATABASE_URL: 'sqlite::memory:',
      FLAGSTAFF_ADMIN_EMAIL: 'ops@example.com',
      FLAGSTAFF_ADMIN_PASSWORD: 'a long password',
    });
    const { url } = started;
    await fetch(`${url}/healthz`);
    await fetch(`${url}/v1/projects`);
    const code = await stop(started);
    const lines = started.output().trim().split('\n');
    expect(lines.filter((line) => line.includes('listening'))).toEqual([
      `Flagstaff is listening: API ${url}/v1 · dashboard ${url}/ · docs ${url}/docs`,
    ]);
    expect(lines).toContain(
      `Created the dashboard admin ops@example.com from FLAGSTAFF_ADMIN_EMAIL; sign in at ${url}/`,
    );
    // Requests are logged at debug: at info, nothing about them (nor any JSON start-up line).
    expect(started.output()).not.toMatch(/incoming request|request completed|\/healthz|Server listening/);
    expect(code).toBe(0);
  });

  it('logs one line per request, without headers, at debug', async () => {
    const started = await serve({ FLAGSTAFF_DATABASE_URL: 'sqlite::memory:', FLAGSTAFF_LOG_LEVEL: 'debug' });
    await fetch(`${started.url}/v1/projects`, {
      headers: { authorization: 'Bearer fsk_nope', 'x-custom': 'seen' },
    });
    await stop(started);
    const requests = started
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{') && line.includes('/v1/projects'));
    expect(requests).toHaveLength(1);
    expect(JSON.parse(requests[0] as string)).toMatchObject({
      level: 20,
      method: 'GET',
      url: '/v1/projects',
      statusCode: 401,
    });
    expect(requests[0]).not.toMatch(/x-custom|fsk_nope|headers/);
  });

  it('answers a port in use with one line naming the port and the variable', async () => {
    const first = await serve({ FLAGSTAFF_DATABASE_URL: 'sqlite::memory:' });
    const port = new URL(first.url).port;
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...process.env, FLAGSTAFF_DATABASE_URL: 'sqlite::memory:', FLAGSTAFF_PORT: port },
    });
    let err = '';
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    await stop(first);
    expect(code).toBe(1);
    expect(err.trim().split('\n')).toEqual([
      `flagstaff: port ${port} on 127.0.0.1 is already in use by another process: stop it, or set FLAGSTAFF_PORT to a free port`,
    ]);
  });
});
