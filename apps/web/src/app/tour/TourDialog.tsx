import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import FormControlLabel from '@mui/material/FormControlLabel';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Switch from '@mui/material/Switch';
import Typography from '@mui/material/Typography';
import CloseIcon from '@mui/icons-material/Close';
import { TOUR_STEPS, UI_TIMING } from '@layerline/contracts';
import { useTour } from './tour-context.ts';

/**
 * The tour dialog. It sits low on the screen with a light backdrop so the page each step
 * navigated to stays visible behind it.
 */
export function TourDialog() {
  const tour = useTour();
  const current = TOUR_STEPS[tour.step];
  if (!current) return null;
  const isFirst = tour.step === 0;
  const isLast = tour.step === TOUR_STEPS.length - 1;

  return (
    <Dialog
      open={tour.open}
      onClose={tour.close}
      aria-labelledby="tour-title"
      data-testid="tour-dialog"
      maxWidth="sm"
      fullWidth
      disableRestoreFocus
      slotProps={{
        backdrop: { sx: { bgcolor: 'rgba(2, 6, 23, 0.35)' } },
        paper: {
          sx: {
            alignSelf: { sm: 'flex-end' },
            mb: { sm: 6 },
            borderRadius: 4,
            border: 1,
            borderColor: 'divider',
          },
        },
      }}
    >
      <LinearProgress variant="determinate" value={((tour.step + 1) / TOUR_STEPS.length) * 100} aria-hidden />
      <DialogTitle id="tour-title" sx={{ pr: 7 }}>
        <Typography
          component="span"
          variant="overline"
          color="primary"
          sx={{ display: 'block', lineHeight: 1.6 }}
          data-testid="tour-step-counter"
        >
          Step {tour.step + 1} of {TOUR_STEPS.length}
        </Typography>
        {current.title}
      </DialogTitle>
      <IconButton
        aria-label="Close tour"
        onClick={tour.close}
        sx={{ position: 'absolute', right: 12, top: 16 }}
      >
        <CloseIcon />
      </IconButton>
      <DialogContent>
        <Typography color="text.secondary">{current.body}</Typography>
      </DialogContent>
      <DialogActions sx={{ px: 3, pb: 2.5, flexWrap: 'wrap', gap: 1 }}>
        <FormControlLabel
          control={
            <Switch
              checked={tour.autoAdvance}
              onChange={(event) => tour.setAutoAdvance(event.target.checked)}
            />
          }
          label={`Auto-advance (${UI_TIMING.tourAutoAdvanceMs / 1000}s)`}
          sx={{ mr: 'auto' }}
        />
        <Box sx={{ display: 'flex', gap: 1 }}>
          <Button onClick={tour.previous} disabled={isFirst}>
            Previous
          </Button>
          {isLast ? (
            <Button variant="contained" onClick={tour.close}>
              Finish
            </Button>
          ) : (
            <Button variant="contained" onClick={tour.next}>
              Next
            </Button>
          )}
        </Box>
      </DialogActions>
    </Dialog>
  );
}
