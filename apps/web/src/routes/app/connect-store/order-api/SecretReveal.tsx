import { useState } from 'react';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';

/** A secret shown once (an API key, a signing secret): copy it now, it is never shown again. */
export function SecretReveal({
  title,
  secret,
  onDone,
  testId,
}: {
  title: string;
  secret: string;
  onDone(): void;
  testId: string;
}) {
  const [copied, setCopied] = useState(false);
  async function copy() {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }
  return (
    <Alert severity="warning" data-testid={testId} sx={{ '& .MuiAlert-message': { minWidth: 0, flex: 1 } }}>
      <AlertTitle>{title}</AlertTitle>
      <Typography variant="body2" sx={{ mb: 1 }}>
        Copy it now and keep it somewhere safe: for your security it will not be shown again.
      </Typography>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
        <Box
          component="code"
          data-testid={`${testId}-value`}
          sx={{
            flex: 1,
            minWidth: 0,
            overflowWrap: 'anywhere',
            fontFamily: 'monospace',
            fontSize: 13,
            p: 1,
            borderRadius: 1,
            bgcolor: 'action.hover',
            userSelect: 'all',
          }}
        >
          {secret}
        </Box>
        <Tooltip title={copied ? 'Copied' : 'Copy'}>
          <IconButton aria-label="Copy to clipboard" onClick={() => void copy()}>
            <ContentCopyIcon fontSize="small" />
          </IconButton>
        </Tooltip>
      </Box>
      <Button size="small" onClick={onDone} sx={{ mt: 1 }}>
        I have copied it
      </Button>
    </Alert>
  );
}
