import type { ReactNode } from 'react';
import Box from '@mui/material/Box';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import RemoveCircleOutlineIcon from '@mui/icons-material/RemoveCircleOutlined';

/** A titled card with a list of what is (or, with `excluded`, is not) part of something. */
export function ChecklistCard({
  title,
  items,
  excluded,
  footer,
}: {
  title: string;
  items: readonly ReactNode[];
  excluded?: boolean;
  footer?: ReactNode;
}) {
  return (
    <Box
      sx={{
        p: { xs: 2.5, md: 3.5 },
        borderRadius: 4,
        border: 1,
        borderColor: 'divider',
        bgcolor: 'background.paper',
        height: '100%',
      }}
    >
      <Typography variant="h5" component="h3">
        {title}
      </Typography>
      <List dense sx={{ mt: 1 }}>
        {items.map((item, index) => (
          <ListItem key={index} disableGutters alignItems="flex-start">
            <ListItemIcon sx={{ minWidth: 34, mt: 0.5, color: excluded ? 'text.secondary' : 'primary.main' }}>
              {excluded ? <RemoveCircleOutlineIcon fontSize="small" /> : <CheckCircleIcon fontSize="small" />}
            </ListItemIcon>
            <ListItemText primary={item} slotProps={{ primary: { sx: { fontSize: '1rem' } } }} />
          </ListItem>
        ))}
      </List>
      {footer}
    </Box>
  );
}
