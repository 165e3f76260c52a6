/** Below this width the scroll animations are skipped (§2): on phones they only delay reading. */
export const NARROW_SCREEN_MAX_PX = 599;

/**
 * Whether scroll-reveal animations should run in this browser right now (§2: skipped under
 * reduced motion or on narrow screens). Read synchronously on the first render so content that
 * will not animate is never hidden, not even for one frame.
 */
export function scrollAnimationsEnabled(
  win: Pick<Window, 'matchMedia' | 'innerWidth'> | undefined = globalThis.window,
): boolean {
  if (!win || typeof win.matchMedia !== 'function' || typeof IntersectionObserver === 'undefined')
    return false;
  if (win.matchMedia('(prefers-reduced-motion: reduce)').matches) return false;
  return !win.matchMedia(`(max-width: ${NARROW_SCREEN_MAX_PX}px)`).matches;
}
