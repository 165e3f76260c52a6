import { useEffect } from 'react';
import { Outlet, useLocation, useMatches } from 'react-router';
import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import { captureAffiliateRef } from '../affiliate-ref.ts';
import { useAuth } from '../auth/AuthProvider.tsx';
import { MonitoringLoader } from '../monitoring/MonitoringLoader.tsx';
import { decideAccess } from '../router/access.ts';
import type { RouteHandle } from '../router/route-handle.ts';
import { TourProvider } from '../tour/TourProvider.tsx';
import { SideNav } from './SideNav.tsx';
import { SiteFooter } from './SiteFooter.tsx';
import { SiteHeader } from './SiteHeader.tsx';
import type { SideNavArea } from './navigation.ts';

/** The frame around every page: header, side nav on signed-in pages, footer on the others. */
export function RootLayout() {
  const auth = useAuth();
  const location = useLocation();
  const sideNavArea = useSideNavArea();

  // §2: each route change scrolls to the top.
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [location.pathname]);

  // §2: a `?ref=` on any URL is remembered for sign-up.
  useEffect(() => {
    captureAffiliateRef(location.search);
  }, [location.search]);

  const showSideNav = sideNavArea !== null && auth.isAuthenticated;
  return (
    <TourProvider>
      <MonitoringLoader />
      <Box sx={{ minHeight: '100vh', display: 'flex', flexDirection: 'column' }}>
        <SiteHeader sideNavArea={showSideNav ? sideNavArea : null} />
        <Box component="main" sx={{ flex: 1, display: 'flex', flexDirection: 'column' }}>
          {showSideNav ? (
            <Container maxWidth="xl" sx={{ display: 'flex', gap: 4, py: { xs: 3, md: 4 }, flex: 1 }}>
              <SideNav area={sideNavArea} />
              <Box sx={{ flex: 1, minWidth: 0 }}>
                <Outlet />
              </Box>
            </Container>
          ) : (
            <Outlet />
          )}
        </Box>
        {showSideNav ? null : <SiteFooter />}
      </Box>
    </TourProvider>
  );
}

/** Signed-in pages get the seller's side nav, admin pages the admin's; only once the guard lets them in. */
function useSideNavArea(): SideNavArea | null {
  const auth = useAuth();
  const matches = useMatches();
  const route = (matches[matches.length - 1]?.handle as RouteHandle | undefined)?.route;
  if (!route || route.access === 'public' || route.access === 'logged-out-only') return null;
  if (decideAccess(route.access, auth).kind !== 'allow') return null;
  return route.access === 'admin' ? 'admin' : 'seller';
}
