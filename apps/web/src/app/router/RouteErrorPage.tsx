import { isRouteErrorResponse, useRouteError } from 'react-router';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';

/**
 * Shown when a page fails to render or to load. The common case after a deployment is a tab
 * still running the old build asking for a page chunk that no longer exists: a reload fixes it.
 */
export function RouteErrorPage() {
  const error = useRouteError();
  console.error('A page failed to load', error);
  const detail = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : null;
  return (
    <Box sx={{ maxWidth: 640, mx: 'auto', my: 10, px: 2 }}>
      <Alert
        severity="error"
        action={
          <Button color="inherit" onClick={() => window.location.reload()}>
            Reload
          </Button>
        }
      >
        <AlertTitle>This page could not be shown</AlertTitle>
        Layerline may have been updated since you opened it. Reloading usually fixes this.
        {detail ? <Box sx={{ mt: 1, opacity: 0.8, fontSize: '0.85em' }}>{detail}</Box> : null}
      </Alert>
    </Box>
  );
}
