import { describe, expect, it } from 'vitest';
import { ExposureHook } from './exposure-hook.ts';
import type { WireEvent } from './tracking-event.ts';

const read = (flagKey: string, targetingKey: unknown) => ({
  flagKey,
  context: { targetingKey, plan: 'pro' },
});

describe('ExposureHook', () => {
  it('sends $exposure once per flag, variant and targeting key', () => {
    const sent: WireEvent[] = [];
    const hook = new ExposureHook((event) => sent.push(event), 100);
    for (let i = 0; i < 3; i++) hook.after(read('checkout', 'u1'), { variant: 'on' });
    hook.after(read('checkout', 'u1'), { variant: 'off' });
    hook.after(read('checkout', 'u2'), { variant: 'on' });
    hook.after(read('banner', 'u1'), { variant: 'on' });
    expect(sent.map((e) => [e.name, e.context.targetingKey, e.details])).toEqual([
      ['$exposure', 'u1', { flag: 'checkout', variant: 'on' }],
      ['$exposure', 'u1', { flag: 'checkout', variant: 'off' }],
      ['$exposure', 'u2', { flag: 'checkout', variant: 'on' }],
      ['$exposure', 'u1', { flag: 'banner', variant: 'on' }],
    ]);
    expect(sent[0]?.context).toEqual({ targetingKey: 'u1', plan: 'pro' });
  });

  it('exposes nothing without a variant, on an error, or without a targeting key', () => {
    const sent: WireEvent[] = [];
    const hook = new ExposureHook((event) => sent.push(event), 100);
    hook.after(read('checkout', 'u1'), {});
    hook.after(read('checkout', 'u1'), { variant: 'on', errorCode: 'FLAG_NOT_FOUND' });
    hook.after(read('checkout', undefined), { variant: 'on' });
    hook.after(read('checkout', ''), { variant: 'on' });
    expect(sent).toEqual([]);
  });

  it('remembers at most its capacity: the oldest combination forgotten is sent again', () => {
    const sent: WireEvent[] = [];
    const hook = new ExposureHook((event) => sent.push(event), 2);
    for (const unit of ['u1', 'u2', 'u3', 'u3', 'u1']) hook.after(read('f', unit), { variant: 'on' });
    expect(sent.map((e) => e.context.targetingKey)).toEqual(['u1', 'u2', 'u3', 'u1']);
  });

  it('never throws into the evaluation, even when sending does', () => {
    const hook = new ExposureHook(() => {
      throw new Error('boom');
    }, 10);
    expect(() => hook.after(read('f', 'u1'), { variant: 'on' })).not.toThrow();
  });
});
