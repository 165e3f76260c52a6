import IconButton from '@mui/material/IconButton';
import DarkModeIcon from '@mui/icons-material/DarkMode';
import LightModeIcon from '@mui/icons-material/LightMode';
import { useThemeMode } from '../app/theme/ThemeModeProvider.tsx';

/** The dark/light switch of the header (§2). */
export function ThemeModeSwitch() {
  const { mode, toggle } = useThemeMode();
  const label = mode === 'dark' ? 'Switch to light mode' : 'Switch to dark mode';
  // The browser's own tooltip (title): MUI's Tooltip would bring Popper.js into every page's first download.
  return (
    <IconButton
      onClick={toggle}
      aria-label={label}
      title={label}
      data-testid="theme-toggle"
      data-mode={mode}
      color="inherit"
    >
      {mode === 'dark' ? <LightModeIcon /> : <DarkModeIcon />}
    </IconButton>
  );
}
