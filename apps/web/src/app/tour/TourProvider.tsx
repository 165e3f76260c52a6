import { lazy, Suspense, useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { TOUR_STEPS, UI_TIMING } from '@layerline/contracts';
import { useAuth } from '../auth/AuthProvider.tsx';
import { TourContext, type TourApi } from './tour-context.ts';

// The dialog's code loads the first time the tour opens: most visits never take the tour.
const TourDialog = lazy(() => import('./TourDialog.tsx').then((module) => ({ default: module.TourDialog })));

const LAST_STEP = TOUR_STEPS.length - 1;

export function TourProvider({ children }: { children: ReactNode }) {
  const navigate = useNavigate();
  const { user } = useAuth();
  // The tour belongs to the user who opened it: signing out (or in as someone else) ends it.
  const [openFor, setOpenFor] = useState<string | null>(null);
  const open = openFor !== null && openFor === user?.id;
  const [dialogLoaded, setDialogLoaded] = useState(false);
  if (open && !dialogLoaded) setDialogLoaded(true);
  const [step, setStep] = useState(0);
  const [autoAdvance, setAutoAdvance] = useState(false);

  const goTo = useCallback(
    (index: number) => {
      const target = TOUR_STEPS[index];
      if (!target) return;
      setStep(index);
      void navigate(target.path);
    },
    [navigate],
  );

  const userId = user?.id ?? null;
  const start = useCallback(() => {
    setOpenFor(userId);
    goTo(0);
  }, [goTo, userId]);

  const close = useCallback(() => {
    setOpenFor(null);
    setStep(0);
    setAutoAdvance(false);
  }, []);

  const next = useCallback(() => goTo(Math.min(step + 1, LAST_STEP)), [goTo, step]);
  const previous = useCallback(() => goTo(Math.max(step - 1, 0)), [goTo, step]);

  // Auto-advance moves on every few seconds and stops on the last step, leaving Finish to the user.
  useEffect(() => {
    if (!open || !autoAdvance || step >= LAST_STEP) return;
    const timer = window.setTimeout(() => goTo(step + 1), UI_TIMING.tourAutoAdvanceMs);
    return () => window.clearTimeout(timer);
  }, [open, autoAdvance, step, goTo]);

  const api = useMemo<TourApi>(
    () => ({ open, step, autoAdvance, start, next, previous, close, setAutoAdvance }),
    [open, step, autoAdvance, start, next, previous, close],
  );

  return (
    <TourContext value={api}>
      {children}
      {dialogLoaded ? (
        <Suspense fallback={null}>
          <TourDialog />
        </Suspense>
      ) : null}
    </TourContext>
  );
}
