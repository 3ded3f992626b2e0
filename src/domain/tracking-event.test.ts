import { describe, expect, it } from 'vitest';
import { checkEvent, FUTURE_SKEW_MS, isRefusal } from './tracking-event.ts';

const NOW = Date.parse('2026-03-10T12:00:00.000Z');
const check = { nowMs: NOW, oldestMs: NOW - 90 * 86_400_000, newId: () => 'evt_made' };
const event = (more: Record<string, unknown>) => ({
  name: 'purchase',
  context: { targetingKey: 'u1' },
  ...more,
});
const codeOf = (raw: unknown) => {
  const checked = checkEvent(raw, check);
  return isRefusal(checked) ? checked.code : 'kept';
};

describe('checkEvent', () => {
  it.each([
    [event({}), 'kept'],
    [event({ name: 'checkout completed' }), 'kept'],
    [event({ name: 'app:page/view-2.0' }), 'kept'],
    [event({ name: ' leading' }), 'invalid_name'],
    [event({ name: 'trailing ' }), 'invalid_name'],
    [event({ name: '$custom' }), 'invalid_name'],
    [event({ name: 'x'.repeat(128) }), 'kept'],
    [event({ name: 'x'.repeat(129) }), 'invalid_name'],
    [event({ name: 42 }), 'invalid_name'],
    [event({ context: { targetingKey: '' } }), 'targeting_key_missing'],
    [event({ context: { targetingKey: 7 } }), 'targeting_key_missing'],
    [event({ context: { targetingKey: 'u', big: 'x'.repeat(9000) } }), 'invalid_context'],
    [event({ context: 'u1' }), 'invalid_context'],
    [event({ value: 0 }), 'kept'],
    [event({ value: '3' }), 'invalid_value'],
    [event({ value: null }), 'invalid_value'],
    [event({ details: [1] }), 'invalid_details'],
    [event({ timestamp: new Date(NOW + FUTURE_SKEW_MS).toISOString() }), 'kept'],
    [event({ timestamp: new Date(NOW + FUTURE_SKEW_MS + 1).toISOString() }), 'future_timestamp'],
    [event({ timestamp: '2026-03-10T13:00:00+02:00' }), 'kept'],
    [event({ timestamp: '2026-03-10' }), 'invalid_timestamp'],
    [event({ timestamp: NOW }), 'invalid_timestamp'],
    [event({ timestamp: new Date(NOW - 91 * 86_400_000).toISOString() }), 'expired_timestamp'],
    [event({ id: '' }), 'invalid_id'],
    [event({ id: 'x'.repeat(129) }), 'invalid_id'],
    [event({ name: '$exposure', details: { flag: 'f', variant: 'on' } }), 'kept'],
    [event({ name: '$exposure', details: { flag: 'f' } }), 'invalid_exposure'],
    [event({ extra: 1 }), 'unknown_field'],
    [null, 'invalid_event'],
  ])('%j → %s', (raw, code) => {
    expect(codeOf(raw)).toBe(code);
  });

  it('keeps the unit apart from the rest of the context, and stamps what was sent without an id or time', () => {
    expect(checkEvent(event({ context: { targetingKey: 'u1', plan: 'pro' } }), check)).toEqual({
      id: 'evt_made',
      name: 'purchase',
      unit: 'u1',
      context: { plan: 'pro' },
      value: null,
      details: null,
      timestamp: NOW,
    });
  });
});
