/**
 * The tour opens by itself on the first dashboard visit after sign-up. Registration leaves
 * this mark in local storage; the dashboard takes it (once) and opens the tour.
 */
const TOUR_PENDING_STORAGE_KEY = 'layerline.tourPending';

export function markTourPending(): void {
  try {
    localStorage.setItem(TOUR_PENDING_STORAGE_KEY, '1');
  } catch {
    // Without storage the tour simply does not open by itself; the button still works.
  }
}

export function takeTourPending(): boolean {
  try {
    const pending = localStorage.getItem(TOUR_PENDING_STORAGE_KEY) === '1';
    if (pending) localStorage.removeItem(TOUR_PENDING_STORAGE_KEY);
    return pending;
  } catch {
    return false;
  }
}
