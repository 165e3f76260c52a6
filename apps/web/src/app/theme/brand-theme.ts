import { createTheme, type Theme } from '@mui/material/styles';

export type ThemeMode = 'dark' | 'light';

/** Brand colours: deep slate surfaces with an orange accent (the colour of hot filament). */
export const BRAND_COLORS = {
  orange: '#f97316',
  orangeDeep: '#ea580c',
  orangeDark: '#c2410c',
  orangeLight: '#fdba74',
  slate950: '#0b1120',
  slate900: '#111827',
  slate700: '#334155',
  slate50: '#f8fafc',
} as const;

export function buildTheme(mode: ThemeMode): Theme {
  const dark = mode === 'dark';
  return createTheme({
    palette: {
      mode,
      // On light surfaces the accent is one shade deeper so orange text stays readable on white.
      primary: dark
        ? {
            main: BRAND_COLORS.orange,
            dark: BRAND_COLORS.orangeDark,
            light: BRAND_COLORS.orangeLight,
            contrastText: '#111827',
          }
        : {
            main: BRAND_COLORS.orangeDeep,
            dark: BRAND_COLORS.orangeDark,
            light: BRAND_COLORS.orange,
            contrastText: '#111827',
          },
      secondary: { main: dark ? '#94a3b8' : BRAND_COLORS.slate700 },
      background: dark
        ? { default: BRAND_COLORS.slate950, paper: BRAND_COLORS.slate900 }
        : { default: BRAND_COLORS.slate50, paper: '#ffffff' },
      text: dark
        ? { primary: '#e2e8f0', secondary: '#94a3b8' }
        : { primary: '#0f172a', secondary: '#475569' },
      divider: dark ? 'rgba(148, 163, 184, 0.16)' : 'rgba(15, 23, 42, 0.12)',
    },
    shape: { borderRadius: 10 },
    typography: {
      fontFamily:
        '"Inter", "Segoe UI", system-ui, -apple-system, Roboto, "Helvetica Neue", Arial, sans-serif',
      h1: { fontWeight: 800, letterSpacing: '-0.02em' },
      h2: { fontWeight: 800, letterSpacing: '-0.02em' },
      h3: { fontWeight: 700, letterSpacing: '-0.01em' },
      h4: { fontWeight: 700, letterSpacing: '-0.01em' },
      h5: { fontWeight: 700 },
      h6: { fontWeight: 700 },
      button: { textTransform: 'none', fontWeight: 600 },
    },
    components: {
      MuiButton: { defaultProps: { disableElevation: true } },
      MuiPaper: { styleOverrides: { root: { backgroundImage: 'none' } } },
      MuiCard: {
        defaultProps: { variant: 'outlined' },
        styleOverrides: { root: { borderRadius: 14 } },
      },
      MuiAppBar: { styleOverrides: { root: { backgroundImage: 'none' } } },
      MuiTextField: { defaultProps: { fullWidth: true } },
    },
  });
}
