import { Link as RouterLink, NavLink } from 'react-router';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Divider from '@mui/material/Divider';
import Drawer from '@mui/material/Drawer';
import List from '@mui/material/List';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import ListSubheader from '@mui/material/ListSubheader';
import LogoutIcon from '@mui/icons-material/Logout';
import { BrandLogo } from '../../components/BrandLogo.tsx';
import { useAuth } from '../auth/AuthProvider.tsx';
import { MOBILE_DRAWER_WIDTH_PX } from './layout-constants.ts';
import { sideNavItems, type HeaderNavigation, type SideNavArea } from './navigation.ts';
import { SideNavIcon } from './SideNavIcon.tsx';

interface MobileNavDrawerProps {
  open: boolean;
  onClose(): void;
  navigation: HeaderNavigation;
  /** On signed-in pages the side nav is folded into the drawer, since it is hidden on small screens. */
  sideNavArea: SideNavArea | null;
  onSignOut(): void;
}

/** The mobile drawer (§2): the header's links, then the page area's side nav. */
export function MobileNavDrawer({ open, onClose, navigation, sideNavArea, onSignOut }: MobileNavDrawerProps) {
  const { isBetaTester } = useAuth();
  const linkSx = { '&.active': { color: 'primary.main', bgcolor: 'action.selected' } };
  return (
    <Drawer
      anchor="right"
      open={open}
      onClose={onClose}
      slotProps={{
        paper: { sx: { width: MOBILE_DRAWER_WIDTH_PX }, 'data-testid': 'mobile-drawer' } as object,
      }}
    >
      <Box sx={{ p: 2 }}>
        <BrandLogo size={32} />
      </Box>
      <Divider />
      <List component="nav" aria-label="Main" onClick={onClose}>
        {navigation.links.map((link) => (
          <ListItemButton key={link.to} component={NavLink} to={link.to} sx={linkSx}>
            <ListItemText primary={link.label} />
          </ListItemButton>
        ))}
        {navigation.showLogout ? (
          <ListItemButton onClick={onSignOut}>
            <ListItemIcon sx={{ minWidth: 36 }}>
              <LogoutIcon fontSize="small" />
            </ListItemIcon>
            <ListItemText primary="Logout" />
          </ListItemButton>
        ) : null}
      </List>
      {navigation.callToAction ? (
        <Box sx={{ px: 2 }} onClick={onClose}>
          <Button
            component={RouterLink}
            to={navigation.callToAction.to}
            variant="contained"
            fullWidth
            sx={{ borderRadius: 999 }}
          >
            {navigation.callToAction.label}
          </Button>
        </Box>
      ) : null}
      {sideNavArea ? (
        <>
          <Divider sx={{ mt: 1 }} />
          <List
            component="nav"
            aria-label={sideNavArea === 'admin' ? 'Admin pages' : 'Your pages'}
            onClick={onClose}
            subheader={
              <ListSubheader disableSticky>
                {sideNavArea === 'admin' ? 'Admin' : 'Your workspace'}
              </ListSubheader>
            }
          >
            {sideNavItems(sideNavArea, isBetaTester).map((item) => (
              <ListItemButton key={item.to} component={NavLink} to={item.to} end sx={linkSx}>
                <ListItemIcon sx={{ minWidth: 36 }}>
                  <SideNavIcon name={item.icon} />
                </ListItemIcon>
                <ListItemText primary={item.label} />
              </ListItemButton>
            ))}
          </List>
        </>
      ) : null}
    </Drawer>
  );
}
