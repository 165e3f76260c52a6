import { describe, expect, it } from 'vitest';
import { absoluteLink } from './order-api-service.ts';

describe('absoluteLink', () => {
  it('puts the site before a path of ours, so a receiver outside can follow it', () => {
    expect(absoluteLink('/tracking/SBX123', 'https://layerline.example')).toBe(
      'https://layerline.example/tracking/SBX123',
    );
  });

  it('leaves a carrier’s own link and a missing one as they are', () => {
    const usps = 'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400111899223197428490';
    expect(absoluteLink(usps, 'https://layerline.example')).toBe(usps);
    expect(absoluteLink('', 'https://layerline.example')).toBe('');
  });
});
