import { afterEach, describe, expect, it, vi } from 'vitest';
import { scrollAnimationsEnabled } from './reveal-motion.ts';

function fakeWindow({ reducedMotion, width }: { reducedMotion: boolean; width: number }) {
  return {
    innerWidth: width,
    matchMedia: (query: string) => {
      const maxWidth = /max-width: (\d+)px/.exec(query);
      const matches = query.includes('prefers-reduced-motion')
        ? reducedMotion
        : maxWidth
          ? width <= Number(maxWidth[1])
          : false;
      return { matches } as MediaQueryList;
    },
  };
}

describe('scrollAnimationsEnabled', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('animates on wide screens without a reduced-motion preference', () => {
    vi.stubGlobal('IntersectionObserver', class {});
    expect(scrollAnimationsEnabled(fakeWindow({ reducedMotion: false, width: 1280 }))).toBe(true);
    expect(scrollAnimationsEnabled(fakeWindow({ reducedMotion: false, width: 600 }))).toBe(true);
  });

  it('skips animations under reduced motion and below 600 px', () => {
    vi.stubGlobal('IntersectionObserver', class {});
    expect(scrollAnimationsEnabled(fakeWindow({ reducedMotion: true, width: 1280 }))).toBe(false);
    expect(scrollAnimationsEnabled(fakeWindow({ reducedMotion: false, width: 599 }))).toBe(false);
    expect(scrollAnimationsEnabled(fakeWindow({ reducedMotion: false, width: 390 }))).toBe(false);
  });

  it('skips them where the browser cannot observe scrolling, or there is no window at all', () => {
    vi.stubGlobal('IntersectionObserver', undefined);
    expect(scrollAnimationsEnabled(fakeWindow({ reducedMotion: false, width: 1280 }))).toBe(false);
    expect(scrollAnimationsEnabled(undefined)).toBe(false);
  });
});
