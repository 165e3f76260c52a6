import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import CheckCircleOutlineIcon from '@mui/icons-material/CheckCircleOutlineOutlined';
import ErrorOutlineIcon from '@mui/icons-material/ErrorOutlineOutlined';
import type { Design } from '@layerline/contracts';
import { formatBytes, formatCount, formatDimensions } from '../design-format.ts';
import { BUILD_VOLUME_MM } from '../viewer/build-volume.ts';

function YesNo({ ok, yes, no }: { ok: boolean; yes: string; no: string }) {
  return (
    <Box
      component="span"
      sx={{
        display: 'inline-flex',
        alignItems: 'center',
        gap: 0.5,
        color: ok ? 'success.main' : 'error.main',
      }}
    >
      {ok ? <CheckCircleOutlineIcon sx={{ fontSize: 18 }} /> : <ErrorOutlineIcon sx={{ fontSize: 18 }} />}
      {ok ? yes : no}
    </Box>
  );
}

/** The measured facts of a model, as a definition list. */
export function DesignFacts({ design }: { design: Design }) {
  const facts: { term: string; value: ReactNode; testId?: string }[] = [
    { term: 'Dimensions', value: formatDimensions(design.bboxMm), testId: 'fact-dimensions' },
    {
      term: 'Volume',
      value: `${(design.volumeMm3 / 1000).toLocaleString('en-US', { maximumFractionDigits: 2 })} cm³`,
    },
    {
      term: 'Surface',
      value: `${(design.surfaceAreaMm2 / 100).toLocaleString('en-US', { maximumFractionDigits: 1 })} cm²`,
    },
    { term: 'Triangles', value: formatCount(design.triangles) },
    {
      term: design.format === '3mf' ? 'Objects · shells' : 'Shells',
      value: design.format === '3mf' ? `${design.objectCount} · ${design.shells}` : String(design.shells),
    },
    { term: 'Watertight', value: <YesNo ok={design.watertight} yes="Yes" no="No: see the checks" /> },
    {
      term: 'Print bed',
      value: (
        <YesNo
          ok={design.fitsBuildVolume}
          yes={`Fits ${BUILD_VOLUME_MM.join(' × ')} mm`}
          no={`Larger than ${BUILD_VOLUME_MM.join(' × ')} mm`}
        />
      ),
      testId: 'fact-fits',
    },
    {
      term: 'File',
      value: `${design.fileName} · ${design.format.toUpperCase()} · ${formatBytes(design.sizeBytes)}`,
    },
  ];
  return (
    <Box
      component="dl"
      sx={{ display: 'grid', gridTemplateColumns: 'auto minmax(0, 1fr)', columnGap: 2, rowGap: 0.75, m: 0 }}
      data-testid="design-facts"
    >
      {facts.map((fact) => (
        <Box key={fact.term} sx={{ display: 'contents' }}>
          <Typography component="dt" variant="body2" color="text.secondary">
            {fact.term}
          </Typography>
          <Typography
            component="dd"
            variant="body2"
            sx={{ m: 0, overflowWrap: 'anywhere' }}
            data-testid={fact.testId}
          >
            {fact.value}
          </Typography>
        </Box>
      ))}
    </Box>
  );
}
