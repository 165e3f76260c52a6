import { createContext, useContext } from 'react';

/*
 * The tour's state as the app reads it. TourProvider.tsx provides it and renders TourDialog.tsx, which
 * (like the dashboard's "Take the tour") reads it with useTour: in a file of its own so that the dialog
 * does not import the provider that loads it.
 */

/** The guided tour (§2, §4): open/closed, step 0–6, auto-advance on/off. */
export interface TourApi {
  open: boolean;
  step: number;
  autoAdvance: boolean;
  start(): void;
  next(): void;
  previous(): void;
  /** Finish or close: both end the tour and reset it to step 0. */
  close(): void;
  setAutoAdvance(on: boolean): void;
}

export const TourContext = createContext<TourApi | null>(null);

export function useTour(): TourApi {
  const context = useContext(TourContext);
  if (!context) throw new Error('useTour must be used within a TourProvider');
  return context;
}
