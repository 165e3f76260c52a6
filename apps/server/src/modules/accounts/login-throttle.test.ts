import { describe, expect, it } from 'vitest';
import { addressGroup } from './login-throttle.ts';

describe('addressGroup', () => {
  it('keeps an IPv4 address whole and reads IPv4-mapped IPv6 as IPv4', () => {
    expect(addressGroup('203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('groups IPv6 by its /64, however the address is written', () => {
    expect(addressGroup('2001:db8:5:7::1')).toBe('2001:db8:5:7::/64');
    expect(addressGroup('2001:0DB8:0005:0007:ffff:0:0:1')).toBe('2001:db8:5:7::/64');
    expect(addressGroup('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('2001:db8:5:8::1')).not.toBe(addressGroup('2001:db8:5:7::1'));
  });
});
