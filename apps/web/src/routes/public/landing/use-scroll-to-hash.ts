import { useEffect } from 'react';
import { useLocation } from 'react-router';

/**
 * Scrolls to the section named in the URL's hash (e.g. /#earnings-calculator from the pricing
 * page). It waits a frame because the shell scrolls every new route to the top after the page's
 * own effects have run.
 */
export function useScrollToHash() {
  const { hash } = useLocation();
  useEffect(() => {
    if (!hash) return;
    const frame = requestAnimationFrame(() => {
      document.getElementById(decodeURIComponent(hash.slice(1)))?.scrollIntoView();
    });
    return () => cancelAnimationFrame(frame);
  }, [hash]);
}
