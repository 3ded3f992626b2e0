import { afterEach, describe, expect, it, vi } from 'vitest';
import { allItems } from './api.ts';

// A list a picker needs whole (projects, invitations, API keys) is read page after page, not
// cut at the first 1,000.

describe('allItems', () => {
  afterEach(() => vi.unstubAllGlobals());

  it("follows the list's next links to its end, asking each page once", async () => {
    const asked: string[] = [];
    const pages: Record<string, { items: number[]; next?: string }> = {
      '/v1/projects?limit=1000': { items: [1, 2], next: '/v1/projects?limit=1000&cursor=b' },
      '/v1/projects?limit=1000&cursor=b': { items: [3], next: '/v1/projects?limit=1000&cursor=c' },
      '/v1/projects?limit=1000&cursor=c': { items: [4] },
    };
    vi.stubGlobal('fetch', async (url: string) => {
      asked.push(url);
      const page = pages[url];
      if (page === undefined) return new Response('{}', { status: 404 });
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (page.next !== undefined) headers.link = `<${page.next}>; rel="next"`;
      return new Response(JSON.stringify(page.items), { headers });
    });
    expect(await allItems<number>('/projects?limit=1000')).toEqual([1, 2, 3, 4]);
    expect(asked).toEqual(Object.keys(pages));
  });
});
