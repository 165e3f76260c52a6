import type { FormEvent, ReactNode } from 'react';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Divider from '@mui/material/Divider';
import Typography from '@mui/material/Typography';

/** A card holding one independently saved form of the settings page. */
export function SettingsSection({
  title,
  description,
  children,
  submitLabel,
  busy,
  onSubmit,
  testId,
}: {
  title: string;
  description: string;
  children: ReactNode;
  submitLabel: string;
  busy: boolean;
  onSubmit(): void;
  testId: string;
}) {
  function submit(event: FormEvent) {
    event.preventDefault();
    onSubmit();
  }
  return (
    <Card component="section" aria-label={title} data-testid={testId}>
      <Box component="form" noValidate onSubmit={submit}>
        <CardContent sx={{ p: { xs: 2.5, sm: 3 } }}>
          <Typography variant="h6" component="h2">
            {title}
          </Typography>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2.5 }}>
            {description}
          </Typography>
          {children}
        </CardContent>
        <Divider />
        <Box sx={{ display: 'flex', justifyContent: 'flex-end', px: 3, py: 1.5 }}>
          <Button type="submit" variant="contained" disabled={busy}>
            {busy ? 'Saving…' : submitLabel}
          </Button>
        </Box>
      </Box>
    </Card>
  );
}
