import { lazy, Suspense, useState } from 'react';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';

// The dialog's code (the viewer, print configurations, quotes, problem lists) loads when a design
// is first opened: a visit that only looks at the grid never downloads it.
const DesignDetailDialog = lazy(() =>
  import('./DesignDetailDialog.tsx').then((module) => ({ default: module.DesignDetailDialog })),
);

/** Over the page while the dialog's code arrives, so the click shows it was heard. */
function LoadingDialog() {
  return (
    <Box
      data-testid="design-detail-loading"
      sx={{
        position: 'fixed',
        inset: 0,
        zIndex: 'modal',
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        bgcolor: 'rgba(0, 0, 0, 0.5)',
      }}
    >
      <CircularProgress aria-label="Opening the design" />
    </Box>
  );
}

/**
 * DesignDetailDialog, loaded when a design is first opened (a click, or a link with `?design=`).
 * Once loaded it stays mounted, so closing it plays the dialog's own transition.
 */
export function LazyDesignDetailDialog({ designId, onClose }: { designId: string | null; onClose(): void }) {
  const [wanted, setWanted] = useState(designId !== null);
  if (designId !== null && !wanted) setWanted(true);
  if (!wanted) return null;
  return (
    <Suspense fallback={designId !== null ? <LoadingDialog /> : null}>
      <DesignDetailDialog designId={designId} onClose={onClose} />
    </Suspense>
  );
}
