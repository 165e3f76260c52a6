import { NavLink } from 'react-router';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import ListSubheader from '@mui/material/ListSubheader';
import Paper from '@mui/material/Paper';
import { useAuth } from '../auth/AuthProvider.tsx';
import { SIDE_NAV_WIDTH_PX } from './layout-constants.ts';
import { sideNavItems, type SideNavArea } from './navigation.ts';
import { SideNavIcon } from './SideNavIcon.tsx';

/** The side nav of signed-in pages (§2); hidden on small screens, where the drawer carries it. */
export function SideNav({ area }: { area: SideNavArea }) {
  const { isBetaTester } = useAuth();
  const label = area === 'admin' ? 'Admin pages' : 'Your pages';
  return (
    <Paper
      component="aside"
      variant="outlined"
      data-testid="side-nav"
      sx={{
        display: { xs: 'none', md: 'block' },
        width: SIDE_NAV_WIDTH_PX,
        flexShrink: 0,
        alignSelf: 'flex-start',
        position: 'sticky',
        top: 24,
        borderRadius: 3,
        py: 1,
      }}
    >
      <List
        component="nav"
        aria-label={label}
        dense
        subheader={
          <ListSubheader disableSticky sx={{ bgcolor: 'transparent', lineHeight: '36px' }}>
            {area === 'admin' ? 'Admin' : 'Your workspace'}
          </ListSubheader>
        }
      >
        {sideNavItems(area, isBetaTester).map((item) => (
          <ListItemButton
            key={item.to}
            component={NavLink}
            to={item.to}
            end
            sx={{
              mx: 1,
              borderRadius: 2,
              '&.active': {
                bgcolor: 'action.selected',
                color: 'primary.main',
                '& .MuiListItemIcon-root': { color: 'primary.main' },
              },
            }}
          >
            <ListItemIcon sx={{ minWidth: 34 }}>
              <SideNavIcon name={item.icon} />
            </ListItemIcon>
            <ListItemText primary={item.label} slotProps={{ primary: { sx: { fontWeight: 500 } } }} />
          </ListItemButton>
        ))}
      </List>
    </Paper>
  );
}
