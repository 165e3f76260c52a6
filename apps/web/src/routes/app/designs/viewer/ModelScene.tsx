import { useEffect, useMemo, useRef, useState } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Typography from '@mui/material/Typography';
import CenterFocusStrongOutlinedIcon from '@mui/icons-material/CenterFocusStrongOutlined';
import { ModelStage } from './model-stage.ts';
import { trianglePositions, type ViewerMesh } from './viewer-mesh.ts';

export interface ModelSceneProps {
  mesh: ViewerMesh;
  bboxMm: readonly [number, number, number];
  colour: string;
  /** Triangle indices to draw in red (a selected problem), or null. */
  highlightTriangles: readonly number[] | null;
}

const AXIS_COLOURS = { x: '#ef4444', y: '#22c55e', z: '#3b82f6' } as const;

/**
 * The three.js scene, loaded lazily (this module is the only one importing three) so the rest of
 * the app does not download it.
 */
export default function ModelScene({ mesh, bboxMm, colour, highlightTriangles }: ModelSceneProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const xLabel = useRef<HTMLDivElement>(null);
  const yLabel = useRef<HTMLDivElement>(null);
  const zLabel = useRef<HTMLDivElement>(null);
  const stageRef = useRef<ModelStage | null>(null);
  const [contextLost, setContextLost] = useState(false);
  const highlight = useMemo(
    () => (highlightTriangles ? trianglePositions(mesh, highlightTriangles) : null),
    [mesh, highlightTriangles],
  );

  useEffect(() => {
    const container = containerRef.current;
    if (!container || !xLabel.current || !yLabel.current || !zLabel.current) return;
    const stage = new ModelStage(container, { x: xLabel.current, y: yLabel.current, z: zLabel.current }, () =>
      setContextLost(true),
    );
    stageRef.current = stage;
    return () => {
      stageRef.current = null;
      stage.dispose();
    };
  }, []);

  // The colour is applied by its own effect below; a new colour must not rebuild the model.
  const colourRef = useRef(colour);
  useEffect(() => {
    colourRef.current = colour;
    stageRef.current?.setColour(colour);
  }, [colour]);

  useEffect(() => {
    stageRef.current?.setModel(mesh, colourRef.current);
  }, [mesh]);

  useEffect(() => {
    stageRef.current?.setHighlight(highlight);
  }, [highlight, mesh]);

  const labels = [
    { axis: 'x', ref: xLabel, value: bboxMm[0] },
    { axis: 'y', ref: yLabel, value: bboxMm[1] },
    { axis: 'z', ref: zLabel, value: bboxMm[2] },
  ] as const;

  return (
    <Box ref={containerRef} sx={{ position: 'absolute', inset: 0, overflow: 'hidden' }}>
      {labels.map(({ axis, ref, value }) => (
        <Box
          key={axis}
          ref={ref}
          data-testid={`viewer-dimension-${axis}`}
          sx={{
            position: 'absolute',
            left: 0,
            top: 0,
            visibility: 'hidden',
            pointerEvents: 'none',
            px: 0.75,
            py: 0.25,
            borderRadius: 1,
            fontSize: 12,
            fontWeight: 600,
            whiteSpace: 'nowrap',
            bgcolor: 'rgba(15, 23, 42, 0.78)',
            color: '#fff',
            borderLeft: `3px solid ${AXIS_COLOURS[axis]}`,
          }}
        >
          {axis.toUpperCase()} {value.toFixed(1)} mm
        </Box>
      ))}
      <Button
        size="small"
        variant="contained"
        color="inherit"
        startIcon={<CenterFocusStrongOutlinedIcon />}
        onClick={() => stageRef.current?.resetView()}
        sx={{
          position: 'absolute',
          right: 8,
          bottom: 8,
          bgcolor: 'background.paper',
          color: 'text.primary',
          boxShadow: 1,
        }}
      >
        Reset view
      </Button>
      {contextLost ? (
        <Box
          sx={{
            position: 'absolute',
            inset: 0,
            display: 'grid',
            placeItems: 'center',
            bgcolor: 'background.paper',
            p: 2,
          }}
        >
          <Typography color="text.secondary" align="center">
            The 3D preview stopped because the graphics card was reset. Close and reopen the design to see it
            again.
          </Typography>
        </Box>
      ) : null}
    </Box>
  );
}
