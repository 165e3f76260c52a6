import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { fetchPublicConfig } from '../../api/config.ts';
import { useAuth } from '../auth/AuthProvider.tsx';
import type { ErrorReporter } from './error-reporter.ts';
import { whenIdle } from './when-idle.ts';

/**
 * Loads error reporting once the browser is idle (§7), and only when the server configures a
 * DSN. The reporter's code is a separate chunk, so visitors of an unmonitored install never
 * download it. Renders nothing.
 */
export function MonitoringLoader() {
  const { user } = useAuth();
  const location = useLocation();
  const [reporter, setReporter] = useState<ErrorReporter | null>(null);
  const started = useRef(false);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    whenIdle(() => {
      fetchPublicConfig()
        .then(async (config) => {
          if (!config.sentryDsn) return;
          const { installErrorReporter } = await import('./error-reporter.ts');
          setReporter(installErrorReporter(config.sentryDsn, config.monitoringSampleRates));
        })
        .catch((error: unknown) => console.warn('Monitoring not started', error));
    });
  }, []);

  useEffect(() => {
    reporter?.setUser(user ? { id: user.id, name: user.name, email: user.email } : null);
  }, [reporter, user]);

  useEffect(() => {
    reporter?.recordNavigation(location.pathname);
  }, [reporter, location.pathname]);

  return null;
}
