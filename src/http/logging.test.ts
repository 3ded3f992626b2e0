import { describe, expect, it } from 'vitest';
import { redactUrl } from './logging.ts';

describe('redactUrl', () => {
  it.each([
    ['/v1/projects', '/v1/projects'],
    ['/v1/flags/f?project=p&environment=production', '/v1/flags/f?project=p&environment=production'],
    ['/v1/projects?api_key=abc', '/v1/projects?api_key=[redacted]'],
    ['/v1/projects?apiKey=abc&x=1', '/v1/projects?apiKey=[redacted]&x=1'],
    [
      '/v1/events?token=t0k&access_token=a&password=p',
      '/v1/events?token=[redacted]&access_token=[redacted]&password=[redacted]',
    ],
    ['/v1/flags/f?note=fsk_abc-DEF_123', '/v1/flags/f?note=[redacted]'],
    [
      '/v1/flags/f?attributes=%7B%22k%22%3A%22fsk_abc%22%7D',
      '/v1/flags/f?attributes=%7B%22k%22%3A%22[redacted]%22%7D',
    ],
    ['/v1/flags/fsk_abc?project=p', '/v1/flags/[redacted]?project=p'],
    ['/setup?fsi_invite', '/setup?[redacted]'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});
