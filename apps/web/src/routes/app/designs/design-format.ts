import type { Quote } from '@layerline/contracts';

/** How designs, sizes and quotes read everywhere in the app (cards, detail, admin). */

const USD = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

export function formatUsd(amount: number): string {
  return USD.format(amount);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'] as const;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 100 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

/** Print time as h:mm (a 90-minute print reads 1:30). */
export function formatPrintTime(seconds: number): string {
  const totalMinutes = Math.max(0, Math.round(seconds / 60));
  const hours = Math.floor(totalMinutes / 60);
  const minutes = totalMinutes % 60;
  return `${hours}:${String(minutes).padStart(2, '0')}`;
}

/** "1:30" or "1h 30m" typed by an admin, back to seconds; null when it is not a duration. */
export function parsePrintTime(text: string): number | null {
  const trimmed = text.trim();
  const clock = /^(\d{1,4}):([0-5]\d)$/.exec(trimmed);
  if (clock) return Number(clock[1]) * 3600 + Number(clock[2]) * 60;
  const words = /^(?:(\d{1,4})\s*h)?\s*(?:(\d{1,4})\s*m)?$/i.exec(trimmed);
  if (words && (words[1] || words[2])) return Number(words[1] ?? 0) * 3600 + Number(words[2] ?? 0) * 60;
  return null;
}

export function formatGrams(grams: number): string {
  return `${grams >= 100 ? Math.round(grams) : grams.toFixed(1)} g`;
}

function formatMm(mm: number): string {
  return mm >= 100 ? mm.toFixed(0) : mm.toFixed(1);
}

export function formatDimensions([x, y, z]: readonly [number, number, number]): string {
  return `${formatMm(x)} × ${formatMm(y)} × ${formatMm(z)} mm`;
}

export function formatCount(count: number): string {
  return count.toLocaleString('en-US');
}

/** The one-line summary of a quote: "$4.20 · 35 g · 1:30". */
export function formatQuoteLine(quote: Quote): string {
  return `${formatUsd(quote.costUsd)} · ${formatGrams(quote.grams)} · ${formatPrintTime(quote.printSeconds)}`;
}

export const BASIS_LABELS: Readonly<Record<Quote['basis'], string>> = {
  estimate: 'Estimate',
  slicer: 'Sliced',
  admin: 'Set by Layerline',
};
