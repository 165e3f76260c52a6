import { Component, lazy, Suspense, useMemo, useState, type ReactNode } from 'react';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Typography from '@mui/material/Typography';
import ViewInArOutlinedIcon from '@mui/icons-material/ViewInArOutlined';
import { useViewerMeshBytes } from '../../../../api/designs.ts';
import { parseViewerMesh, type ViewerMesh } from './viewer-mesh.ts';

// three.js is only downloaded by the pages that show a model, and only when they do.
const ModelScene = lazy(() => import('./ModelScene.tsx'));

export interface DesignViewerProps {
  meshUrl: string;
  bboxMm: readonly [number, number, number];
  colour: string;
  highlightTriangles: readonly number[] | null;
  /** A still image shown when 3D is not possible. */
  fallbackImageUrl: string;
  height?: number | Record<string, number>;
}

function browserHasWebGl(): boolean {
  try {
    const canvas = document.createElement('canvas');
    return Boolean(canvas.getContext('webgl2'));
  } catch {
    return false;
  }
}

/** Orbit/zoom/pan preview of a design on the printer's bed, or the reason it cannot be shown. */
export function DesignViewer({
  meshUrl,
  bboxMm,
  colour,
  highlightTriangles,
  fallbackImageUrl,
  height = { xs: 300, md: 420 },
}: DesignViewerProps) {
  const [webGl] = useState(browserHasWebGl);
  const bytes = useViewerMeshBytes(meshUrl);
  const parsed = useMemo((): { mesh: ViewerMesh } | { error: string } | null => {
    if (!bytes.data) return null;
    try {
      return { mesh: parseViewerMesh(bytes.data) };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }, [bytes.data]);

  let content: ReactNode;
  if (!webGl) {
    content = (
      <ViewerMessage imageUrl={fallbackImageUrl}>
        This browser cannot show 3D (WebGL is turned off or unsupported). Here is a still picture instead; the
        quote and checks do not need 3D.
      </ViewerMessage>
    );
  } else if (bytes.isError) {
    content = (
      <ViewerMessage imageUrl={fallbackImageUrl}>
        Could not load the 3D preview: {bytes.error.message}
      </ViewerMessage>
    );
  } else if (parsed && 'error' in parsed) {
    content = <ViewerMessage imageUrl={fallbackImageUrl}>{parsed.error}</ViewerMessage>;
  } else if (!parsed) {
    content = <ViewerSpinner label="Loading the model" />;
  } else {
    content = (
      <ViewerErrorBoundary fallbackImageUrl={fallbackImageUrl}>
        <Suspense fallback={<ViewerSpinner label="Starting the 3D viewer" />}>
          <ModelScene
            mesh={parsed.mesh}
            bboxMm={bboxMm}
            colour={colour}
            highlightTriangles={highlightTriangles}
          />
        </Suspense>
      </ViewerErrorBoundary>
    );
  }

  return (
    <Box
      data-testid="design-viewer"
      sx={{
        position: 'relative',
        height,
        borderRadius: 2,
        overflow: 'hidden',
        border: 1,
        borderColor: 'divider',
        background: (theme) =>
          theme.palette.mode === 'dark'
            ? 'radial-gradient(ellipse at 50% 30%, #1e293b 0%, #0b1120 100%)'
            : 'radial-gradient(ellipse at 50% 30%, #ffffff 0%, #e2e8f0 100%)',
      }}
    >
      {content}
    </Box>
  );
}

function ViewerSpinner({ label }: { label: string }) {
  return (
    <Box
      sx={{ position: 'absolute', inset: 0, display: 'grid', placeItems: 'center' }}
      role="status"
      aria-label={label}
    >
      <Box sx={{ textAlign: 'center' }}>
        <CircularProgress size={32} />
        <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
          {label}…
        </Typography>
      </Box>
    </Box>
  );
}

function ViewerMessage({ children, imageUrl }: { children: ReactNode; imageUrl: string }) {
  return (
    <Box
      sx={{
        position: 'absolute',
        inset: 0,
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        justifyContent: 'center',
        gap: 1,
        p: 2,
      }}
    >
      {imageUrl ? (
        <Box
          component="img"
          src={imageUrl}
          alt="Picture of the model"
          sx={{ maxHeight: '60%', maxWidth: '80%', objectFit: 'contain' }}
        />
      ) : (
        <ViewInArOutlinedIcon sx={{ fontSize: 48, color: 'text.disabled' }} />
      )}
      <Typography
        variant="body2"
        color="text.secondary"
        align="center"
        data-testid="viewer-message"
        sx={{ maxWidth: 420 }}
      >
        {children}
      </Typography>
    </Box>
  );
}

/** WebGL can still fail when the renderer starts (blocked GPU, too many contexts): say so, keep the page. */
class ViewerErrorBoundary extends Component<
  { children: ReactNode; fallbackImageUrl: string },
  { error: Error | null }
> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override render() {
    if (this.state.error) {
      return (
        <ViewerMessage imageUrl={this.props.fallbackImageUrl}>
          The 3D viewer could not start in this browser ({this.state.error.message}). The still picture shows
          the model.
        </ViewerMessage>
      );
    }
    return this.props.children;
  }
}
