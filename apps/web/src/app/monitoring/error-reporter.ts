import type { PublicConfig } from '@layerline/contracts';

/**
 * A deliberately tiny first-party error reporter (no vendor SDK may be bundled). It posts
 * uncaught errors and unhandled promise rejections as JSON to the configured DSN URL, with
 * the signed-in user's id, name and email attached (§7), and honours the configured sample
 * rates:
 *  - session: decided once per browser tab session; an unsampled session reports nothing;
 *  - trace:   a sampled report also carries the page-load timing of this visit;
 *  - replay:  a sampled report also carries the trail of recent route changes. We do not
 *             record the screen: "replay" here is only that trail.
 */
export interface MonitoredUser {
  id: string;
  name: string;
  email: string;
}

export interface ErrorReporter {
  setUser(user: MonitoredUser | null): void;
  recordNavigation(path: string): void;
}

const SESSION_SAMPLE_KEY = 'layerline.monitoringSampled';
const MAX_TRAIL = 20;
/** A broken page can throw in a loop; cap what one visit may send. */
const MAX_REPORTS_PER_PAGE_LOAD = 10;

export function installErrorReporter(
  dsn: string,
  rates: PublicConfig['monitoringSampleRates'],
): ErrorReporter {
  let user: MonitoredUser | null = null;
  const trail: { path: string; at: string }[] = [];
  const sessionSampled = sampledForSession(rates.session);
  const includeTrace = Math.random() < rates.trace;
  const includeTrail = Math.random() < rates.replay;
  let sent = 0;

  function report(kind: 'error' | 'unhandledrejection', error: unknown, message: string): void {
    if (!sessionSampled || sent >= MAX_REPORTS_PER_PAGE_LOAD) return;
    sent += 1;
    const body = {
      kind,
      message,
      stack: error instanceof Error ? error.stack : undefined,
      url: window.location.href,
      userAgent: navigator.userAgent,
      at: new Date().toISOString(),
      user,
      trace: includeTrace ? pageLoadTiming() : undefined,
      trail: includeTrail ? [...trail] : undefined,
    };
    // text/plain keeps this a "simple" cross-origin request (no CORS preflight); keepalive lets it outlive the page.
    fetch(dsn, {
      method: 'POST',
      mode: 'no-cors',
      keepalive: true,
      headers: { 'Content-Type': 'text/plain' },
      body: JSON.stringify(body),
    }).catch(() => {
      // Reporting must never cause more errors.
    });
  }

  window.addEventListener('error', (event) => report('error', event.error, event.message));
  window.addEventListener('unhandledrejection', (event) => {
    const reason: unknown = event.reason;
    report('unhandledrejection', reason, reason instanceof Error ? reason.message : String(reason));
  });

  return {
    setUser(next) {
      user = next;
    },
    recordNavigation(path) {
      trail.push({ path, at: new Date().toISOString() });
      if (trail.length > MAX_TRAIL) trail.shift();
    },
  };
}

function sampledForSession(rate: number): boolean {
  try {
    const stored = sessionStorage.getItem(SESSION_SAMPLE_KEY);
    if (stored !== null) return stored === '1';
    const sampled = Math.random() < rate;
    sessionStorage.setItem(SESSION_SAMPLE_KEY, sampled ? '1' : '0');
    return sampled;
  } catch {
    return Math.random() < rate;
  }
}

function pageLoadTiming(): Record<string, number> | undefined {
  const [navigation] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
  if (!navigation) return undefined;
  return {
    responseEndMs: Math.round(navigation.responseEnd),
    domContentLoadedMs: Math.round(navigation.domContentLoadedEventEnd),
    loadMs: Math.round(navigation.loadEventEnd),
  };
}
