import InputAdornment from '@mui/material/InputAdornment';
import TextField from '@mui/material/TextField';
import type { SxProps, Theme } from '@mui/material/styles';
import SearchIcon from '@mui/icons-material/Search';

/** The search box of a list page: a magnifier, a placeholder, and an accessible name. */
export function SearchField(props: {
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
  label: string;
  testId?: string;
  sx?: SxProps<Theme>;
}) {
  return (
    <TextField
      size="small"
      placeholder={props.placeholder}
      value={props.value}
      onChange={(event) => props.onChange(event.target.value)}
      sx={props.sx}
      slotProps={{
        input: {
          startAdornment: (
            <InputAdornment position="start">
              <SearchIcon fontSize="small" />
            </InputAdornment>
          ),
        },
        htmlInput: { 'aria-label': props.label, ...(props.testId ? { 'data-testid': props.testId } : {}) },
      }}
    />
  );
}
