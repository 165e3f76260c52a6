import { lazy, Suspense, useState } from 'react';
import { Link as RouterLink, NavLink } from 'react-router';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Toolbar from '@mui/material/Toolbar';
import MenuIcon from '@mui/icons-material/Menu';
import { BrandLogo } from '../../components/BrandLogo.tsx';
import { ThemeModeSwitch } from '../../components/ThemeModeSwitch.tsx';
import { useAuth } from '../auth/AuthProvider.tsx';
import { HEADER_HEIGHT_PX } from './layout-constants.ts';
import { headerNavigation, type SideNavArea } from './navigation.ts';
import { useSignOut } from './use-sign-out.ts';

// The drawer's code (Drawer, Modal, focus trap, lists) loads when it is first opened: wide screens never open it.
const MobileNavDrawer = lazy(() =>
  import('./MobileNavDrawer.tsx').then((module) => ({ default: module.MobileNavDrawer })),
);

/** The site header of every page (§2), with the links of the viewer's role. */
export function SiteHeader({ sideNavArea }: { sideNavArea: SideNavArea | null }) {
  const auth = useAuth();
  const signOut = useSignOut();
  const [drawerOpen, setDrawerOpen] = useState(false);
  const [drawerLoaded, setDrawerLoaded] = useState(false);
  const navigation = headerNavigation(auth);

  return (
    <AppBar
      position="static"
      color="transparent"
      elevation={0}
      data-testid="site-header"
      // The divider is an inset shadow, not a border, so the header stays exactly HEADER_HEIGHT_PX tall.
      sx={{ bgcolor: 'background.default', boxShadow: (theme) => `inset 0 -1px 0 ${theme.palette.divider}` }}
    >
      <Toolbar sx={{ height: HEADER_HEIGHT_PX, gap: 2, px: { xs: 2, md: 4 } }}>
        <Box
          component={RouterLink}
          to="/"
          aria-label="Layerline home"
          sx={{ textDecoration: 'none', display: 'flex' }}
        >
          <BrandLogo size={44} />
        </Box>
        <Box sx={{ flexGrow: 1 }} />
        <Box
          component="nav"
          aria-label="Main"
          data-testid="header-nav"
          sx={{ display: { xs: 'none', md: 'flex' }, alignItems: 'center', gap: 0.5 }}
        >
          {navigation.links.map((link) => (
            <Button
              key={link.to}
              component={NavLink}
              to={link.to}
              color="inherit"
              sx={{
                px: 1.5,
                color: 'text.secondary',
                '&:hover': { color: 'text.primary' },
                '&.active': { color: 'primary.main' },
              }}
            >
              {link.label}
            </Button>
          ))}
          {navigation.showLogout ? (
            <Button onClick={() => void signOut()} color="inherit" sx={{ px: 1.5, color: 'text.secondary' }}>
              Logout
            </Button>
          ) : null}
          {navigation.callToAction ? (
            <Button
              component={RouterLink}
              to={navigation.callToAction.to}
              variant="contained"
              size="large"
              sx={{ ml: 1.5, borderRadius: 999, px: 3 }}
            >
              {navigation.callToAction.label}
            </Button>
          ) : null}
        </Box>
        <ThemeModeSwitch />
        <IconButton
          aria-label="Open menu"
          data-testid="mobile-menu-button"
          onClick={() => {
            setDrawerLoaded(true);
            setDrawerOpen(true);
          }}
          sx={{ display: { xs: 'inline-flex', md: 'none' } }}
          color="inherit"
        >
          <MenuIcon />
        </IconButton>
      </Toolbar>
      {drawerLoaded ? (
        <Suspense fallback={null}>
          <MobileNavDrawer
            open={drawerOpen}
            onClose={() => setDrawerOpen(false)}
            navigation={navigation}
            sideNavArea={sideNavArea}
            onSignOut={() => void signOut()}
          />
        </Suspense>
      ) : null}
    </AppBar>
  );
}
