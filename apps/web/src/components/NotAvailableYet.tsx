import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip from '@mui/material/Chip';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Typography from '@mui/material/Typography';
import CheckCircleOutlineOutlinedIcon from '@mui/icons-material/CheckCircleOutlineOutlined';
import ConstructionIcon from '@mui/icons-material/Construction';
import { PageHeading } from './PageHeading.tsx';

export interface NotAvailableYetProps {
  /** The page name, as in the route table. */
  title: string;
  /** One sentence on what the page is for. */
  summary: string;
  /** What the page will let the user do once it ships. */
  willLetYou: readonly string[];
  /** Something useful the user can do today instead. */
  meanwhile: { label: string; to: string; explanation: string };
  icon?: ReactNode;
}

/**
 * The honest placeholder of a page whose capability has not shipped yet: it says what the page
 * will do and points to something the user can do today. Each page passes its own copy, so the
 * page file is the one place a later change replaces.
 */
export function NotAvailableYet({ title, summary, willLetYou, meanwhile, icon }: NotAvailableYetProps) {
  return (
    <Box data-testid="not-available-yet">
      <PageHeading title={title} subtitle={summary} />
      <Card sx={{ maxWidth: 760 }}>
        <CardContent sx={{ p: { xs: 2.5, sm: 4 } }}>
          <Box sx={{ display: 'flex', alignItems: 'center', gap: 2, mb: 2 }}>
            <Box
              sx={{
                width: 56,
                height: 56,
                borderRadius: 3,
                display: 'grid',
                placeItems: 'center',
                bgcolor: 'primary.main',
                color: 'primary.contrastText',
                flexShrink: 0,
                '& svg': { fontSize: 30 },
              }}
            >
              {icon ?? <ConstructionIcon />}
            </Box>
            <Box>
              <Chip
                label="Not available yet"
                color="primary"
                variant="outlined"
                size="small"
                sx={{ mb: 0.5 }}
              />
              <Typography variant="h6" component="h2">
                This page is on its way
              </Typography>
            </Box>
          </Box>
          <Typography color="text.secondary">When it ships, this page will let you:</Typography>
          <List dense>
            {willLetYou.map((item) => (
              <ListItem key={item} disableGutters>
                <ListItemIcon sx={{ minWidth: 34, color: 'primary.main' }}>
                  <CheckCircleOutlineOutlinedIcon fontSize="small" />
                </ListItemIcon>
                <ListItemText primary={item} />
              </ListItem>
            ))}
          </List>
          <Box
            sx={{
              mt: 2,
              p: 2,
              borderRadius: 2,
              bgcolor: 'action.hover',
              display: 'flex',
              flexWrap: 'wrap',
              alignItems: 'center',
              justifyContent: 'space-between',
              gap: 2,
            }}
          >
            <Typography sx={{ flex: '1 1 260px' }}>{meanwhile.explanation}</Typography>
            <Button component={RouterLink} to={meanwhile.to} variant="contained">
              {meanwhile.label}
            </Button>
          </Box>
        </CardContent>
      </Card>
    </Box>
  );
}
