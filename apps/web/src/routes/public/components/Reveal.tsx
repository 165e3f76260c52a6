import { useEffect, useRef, useState, type ReactNode } from 'react';
import Box from '@mui/material/Box';
import { UI_TIMING } from '@layerline/contracts';
import { scrollAnimationsEnabled } from './reveal-motion.ts';

/**
 * Fades and lifts its content in the first time it scrolls into view (§2: 500 ms). Under
 * reduced motion or on narrow screens the content is simply there from the start.
 */
export function Reveal({ children, delayMs = 0 }: { children: ReactNode; delayMs?: number }) {
  const [animate] = useState(scrollAnimationsEnabled);
  const [shown, setShown] = useState(!animate);
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = ref.current;
    if (shown || !element) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          setShown(true);
          observer.disconnect();
        }
      },
      // Start a little before the element is fully on screen so it is settled by the time it is read.
      { rootMargin: '0px 0px -8% 0px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [shown]);

  return (
    <Box
      ref={ref}
      data-reveal={shown ? 'shown' : 'pending'}
      sx={
        animate
          ? {
              height: '100%',
              opacity: shown ? 1 : 0,
              transform: shown ? 'none' : 'translateY(24px)',
              transition: `opacity ${UI_TIMING.scrollAnimationMs}ms ease-out ${delayMs}ms, transform ${UI_TIMING.scrollAnimationMs}ms ease-out ${delayMs}ms`,
            }
          : { height: '100%' }
      }
    >
      {children}
    </Box>
  );
}
