import { describe, expect, it } from 'vitest';
import { batchBody, bufferedEvent, EventBuffer } from './event-buffer.ts';

const event = (name: string, padding = 0) =>
  bufferedEvent({ name, pad: 'x'.repeat(padding) } as { name: string })!;

describe('EventBuffer', () => {
  it('when full, drops the oldest event not on its way for the newest', () => {
    const buffer = new EventBuffer(3);
    const [a, b, c] = [event('a'), event('b'), event('c')];
    for (const e of [a, b, c]) expect(buffer.push(e)).toBe(0);
    a.inFlight = true;
    expect(buffer.push(event('d'))).toBe(1);
    expect(buffer.take(10, Infinity, true).map((e) => e.name)).toEqual(['a', 'c', 'd']);
  });

  it('refuses the newest when everything held is on its way', () => {
    const buffer = new EventBuffer(2);
    const held = [event('a'), event('b')];
    for (const e of held) buffer.push(e);
    for (const e of held) e.inFlight = true;
    expect(buffer.push(event('c'))).toBe(1);
    expect(buffer.size).toBe(2);
    expect(buffer.waiting).toBe(0);
  });

  it('takes at most a count and a body size, but always one event, and skips those on their way', () => {
    const buffer = new EventBuffer(10);
    for (const name of ['a', 'b', 'c', 'd']) buffer.push(event(name, 100));
    expect(buffer.take(2, Infinity).map((e) => e.name)).toEqual(['a', 'b']);
    expect(buffer.take(10, 300).map((e) => e.name)).toEqual(['a', 'b']);
    expect(buffer.take(10, 10).map((e) => e.name)).toEqual(['a']);
    buffer.take(1, Infinity)[0]!.inFlight = true;
    expect(buffer.take(1, Infinity).map((e) => e.name)).toEqual(['b']);
  });

  it('writes the batch the server reads, and measures what it sends in bytes', () => {
    const batch = [bufferedEvent({ name: 'é' })!, bufferedEvent({ name: 'b' })!];
    expect(JSON.parse(batchBody(batch))).toEqual({ events: [{ name: 'é' }, { name: 'b' }] });
    expect(batch[0]?.bytes).toBe('{"name":"é"}'.length + 1);
  });

  it('cannot buffer what is not JSON', () => {
    const cyclic: Record<string, unknown> = { name: 'x' };
    cyclic.self = cyclic;
    expect(bufferedEvent(cyclic as { name: string })).toBeUndefined();
  });
});
