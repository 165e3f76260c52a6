import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import type { PrintJob } from '@layerline/contracts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { useSpoolLoaded } from '../../../api/production.ts';
import { MaterialColour } from './ColourSwatch.tsx';
import type { ColourInfo } from './production-format.ts';

/** "Load PETG Ocean blue" and the button the operator presses once that spool is in the printer. */
export function SpoolChange({
  job,
  colourOf,
}: {
  job: PrintJob;
  colourOf(material: string, colour: string): ColourInfo;
}) {
  const loaded = useSpoolLoaded();
  const { showToast } = useToast();
  if (!job.spoolChange) return null;
  const { material, colour } = job.spoolChange;
  const info = colourOf(material, colour);
  return (
    <Stack
      direction="row"
      spacing={1}
      useFlexGap
      sx={{ alignItems: 'center', flexWrap: 'wrap' }}
      data-testid="spool-change"
    >
      <MaterialColour prefix="Load " material={material} colour={info} />
      <Button
        size="small"
        variant="outlined"
        color="warning"
        disabled={loaded.isPending}
        onClick={() =>
          loaded.mutate(job.id, {
            onSuccess: () => showToast(`${material} ${info.name} loaded`),
            onError: (error) => showToast(error.message, 'error'),
          })
        }
      >
        Spool loaded
      </Button>
    </Stack>
  );
}
