import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import Snackbar from '@mui/material/Snackbar';
import Stack from '@mui/material/Stack';
import { UI_TIMING } from '@layerline/contracts';

export type ToastSeverity = 'success' | 'error' | 'warning' | 'info';

/** A toast as the spec describes it (§3): id, message, severity, duration. */
export interface Toast {
  id: number;
  message: string;
  severity: ToastSeverity;
  durationMs: number;
}

export interface ToastApi {
  showToast(message: string, severity?: ToastSeverity, durationMs?: number): void;
}

const ToastContext = createContext<ToastApi | null>(null);

/** At most this many toasts are on screen; older ones give way to new ones. */
const MAX_VISIBLE_TOASTS = 4;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);

  const dismiss = useCallback((id: number) => {
    setToasts((current) => current.filter((toast) => toast.id !== id));
  }, []);

  const showToast = useCallback<ToastApi['showToast']>(
    (message, severity = 'success', durationMs = UI_TIMING.toastDefaultMs) => {
      setToasts((current) =>
        [...current, { id: nextToastId(), message, severity, durationMs }].slice(-MAX_VISIBLE_TOASTS),
      );
    },
    [],
  );

  const api = useMemo(() => ({ showToast }), [showToast]);

  return (
    <ToastContext value={api}>
      {children}
      <Stack
        data-testid="toast-region"
        aria-live="polite"
        spacing={1}
        sx={{
          position: 'fixed',
          left: 16,
          bottom: 16,
          zIndex: (theme) => theme.zIndex.snackbar,
          maxWidth: 'calc(100vw - 32px)',
        }}
      >
        {toasts.map((toast) => (
          <ToastItem key={toast.id} toast={toast} onDismiss={dismiss} />
        ))}
      </Stack>
    </ToastContext>
  );
}

function ToastItem({ toast, onDismiss }: { toast: Toast; onDismiss(id: number): void }) {
  // Each toast is its own Snackbar so several can stack; positioning comes from the Stack above.
  return (
    <Snackbar
      open
      autoHideDuration={toast.durationMs}
      onClose={(_event, reason) => {
        if (reason !== 'clickaway') onDismiss(toast.id);
      }}
      sx={{ position: 'static', transform: 'none' }}
    >
      <Alert
        data-testid="toast"
        data-severity={toast.severity}
        severity={toast.severity}
        variant="filled"
        onClose={() => onDismiss(toast.id)}
        sx={{ minWidth: 280, boxShadow: 6 }}
      >
        {toast.message}
      </Alert>
    </Snackbar>
  );
}

let lastToastId = 0;
function nextToastId(): number {
  lastToastId += 1;
  return lastToastId;
}

export function useToast(): ToastApi {
  const context = useContext(ToastContext);
  if (!context) throw new Error('useToast must be used within a ToastProvider');
  return context;
}
