import { useEffect, useState } from 'react';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import RocketLaunchIcon from '@mui/icons-material/RocketLaunch';
import { LAUNCH_AT } from '@layerline/contracts';
import { countdownParts } from './countdown.ts';

const UNITS = [
  { key: 'days', label: 'Days' },
  { key: 'hours', label: 'Hours' },
  { key: 'minutes', label: 'Minutes' },
  { key: 'seconds', label: 'Seconds' },
] as const;

/**
 * §2: the countdown to the launch (2025-03-15 19:00 at UTC−5); afterwards it reads "Launched!".
 * `now` is injectable so the before-launch state can be shown and tested.
 */
export function LaunchCountdown({
  target = LAUNCH_AT,
  now = Date.now,
}: {
  target?: Date;
  now?: () => number;
}) {
  const [parts, setParts] = useState(() => countdownParts(now(), target));

  useEffect(() => {
    if (parts.launched) return;
    const timer = window.setInterval(() => setParts(countdownParts(now(), target)), 1000);
    return () => window.clearInterval(timer);
  }, [parts.launched, now, target]);

  return (
    <Box
      data-testid="launch-countdown"
      role="timer"
      aria-live="off"
      sx={{
        display: 'inline-flex',
        alignItems: 'center',
        gap: 1.5,
        px: 2,
        py: 1,
        borderRadius: 999,
        border: 1,
        borderColor: 'divider',
        bgcolor: 'background.paper',
      }}
    >
      <RocketLaunchIcon color="primary" fontSize="small" />
      {parts.launched ? (
        <Typography component="span" sx={{ fontWeight: 700 }} data-testid="launch-countdown-status">
          Launched!
        </Typography>
      ) : (
        <Box component="span" sx={{ display: 'flex', gap: 1.5, alignItems: 'baseline' }}>
          <Typography component="span" variant="body2" color="text.secondary">
            Launching in
          </Typography>
          {UNITS.map((unit) => (
            <Box
              key={unit.key}
              component="span"
              sx={{ display: 'inline-flex', alignItems: 'baseline', gap: 0.5 }}
            >
              <Typography
                component="span"
                sx={{ fontWeight: 800, fontVariantNumeric: 'tabular-nums' }}
                data-testid={`launch-countdown-${unit.key}`}
              >
                {String(parts[unit.key]).padStart(unit.key === 'days' ? 1 : 2, '0')}
              </Typography>
              <Typography component="span" variant="caption" color="text.secondary">
                {unit.label}
              </Typography>
            </Box>
          ))}
        </Box>
      )}
    </Box>
  );
}
