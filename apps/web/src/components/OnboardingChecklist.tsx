import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import LinearProgress from '@mui/material/LinearProgress';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ChevronRightIcon from '@mui/icons-material/ChevronRight';
import RadioButtonUncheckedIcon from '@mui/icons-material/RadioButtonUnchecked';
import type { DashboardOverview } from '@layerline/contracts';

type ChecklistItem = DashboardOverview['checklist'][number];

/** The onboarding checklist of the dashboard and /welcome: done items ticked, unshipped ones marked. */
export function OnboardingChecklist({ items }: { items: readonly ChecklistItem[] }) {
  const done = items.filter((item) => item.done).length;
  const percent = items.length === 0 ? 0 : Math.round((done / items.length) * 100);
  return (
    <Box data-testid="onboarding-checklist">
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 1 }}>
        <LinearProgress
          variant="determinate"
          value={percent}
          sx={{ flex: 1, height: 8, borderRadius: 4 }}
          aria-label="Setup progress"
        />
        <Typography variant="body2" color="text.secondary" sx={{ whiteSpace: 'nowrap' }}>
          {done} of {items.length} done
        </Typography>
      </Box>
      <List disablePadding>
        {items.map((item) => {
          const icon = item.done ? (
            <CheckCircleIcon color="success" />
          ) : (
            <RadioButtonUncheckedIcon color="disabled" />
          );
          const text = (
            <ListItemText
              primary={item.label}
              slotProps={{
                primary: {
                  sx: {
                    textDecoration: item.done ? 'line-through' : 'none',
                    color: item.done ? 'text.secondary' : 'text.primary',
                  },
                },
              }}
            />
          );
          if (!item.available) {
            return (
              <ListItem key={item.id} sx={{ px: 1 }}>
                <ListItemIcon sx={{ minWidth: 40 }}>{icon}</ListItemIcon>
                {text}
                <Chip label="Coming soon" size="small" variant="outlined" />
              </ListItem>
            );
          }
          return (
            <ListItem key={item.id} disablePadding>
              <ListItemButton component={RouterLink} to={item.href} sx={{ borderRadius: 2, px: 1 }}>
                <ListItemIcon sx={{ minWidth: 40 }}>{icon}</ListItemIcon>
                {text}
                {item.done ? null : <ChevronRightIcon color="action" />}
              </ListItemButton>
            </ListItem>
          );
        })}
      </List>
    </Box>
  );
}
