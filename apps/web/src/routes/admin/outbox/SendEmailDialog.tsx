import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import MenuItem from '@mui/material/MenuItem';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { EMAIL_TEMPLATE_TYPES, EMAIL_TYPE_INFO, type EmailMessage, type EmailTemplateType } from '@layerline/contracts';
import { useSendCustomEmail } from '../../../api/notifications.ts';
import { parseVars } from './email-vars.ts';

/** sendCustomEmail: an admin's email to any address, with `{{name}}` variables. */
export function SendEmailDialog({ onClose, onSent }: { onClose(): void; onSent(message: EmailMessage): void }) {
  const [email, setEmail] = useState('');
  const [subject, setSubject] = useState('');
  const [message, setMessage] = useState('');
  const [templateType, setTemplateType] = useState<EmailTemplateType>('custom');
  const [varsText, setVarsText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const send = useSendCustomEmail();

  const submit = () => {
    const vars = parseVars(varsText);
    if ('error' in vars) {
      setProblem(vars.error);
      return;
    }
    if (!email.trim() || !subject.trim() || !message.trim()) {
      setProblem('Recipient, subject and message are required');
      return;
    }
    setProblem(null);
    send.mutate({ email: email.trim(), subject, message, templateType, vars: vars.vars }, { onSuccess: onSent });
  };
  const error = problem ?? send.error?.message;

  return (
    <Dialog open onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="send-email-title">
      <DialogTitle id="send-email-title">Send an email</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Typography variant="body2" color="text.secondary">
            Written in plain text; a blank line starts a new paragraph. <code>{'{{name}}'}</code> is replaced by the variable
            <code> name</code> below. Sent in the Layerline layout with an unsubscribe link when the address is an account’s.
          </Typography>
          {error ? <Alert severity="error">{error}</Alert> : null}
          <TextField label="To" type="email" value={email} onChange={(e) => setEmail(e.target.value)} size="small" required autoFocus />
          <TextField label="Subject" value={subject} onChange={(e) => setSubject(e.target.value)} size="small" required />
          <TextField label="Message" value={message} onChange={(e) => setMessage(e.target.value)} multiline minRows={5} required />
          <TextField
            select
            label="Kind"
            helperText="Which of the recipient’s email settings it falls under"
            value={templateType}
            onChange={(e) => setTemplateType(e.target.value as EmailTemplateType)}
            size="small"
          >
            {EMAIL_TEMPLATE_TYPES.map((type) => (
              <MenuItem key={type} value={type}>
                {EMAIL_TYPE_INFO[type].label}
              </MenuItem>
            ))}
          </TextField>
          <TextField
            label="Variables"
            placeholder={'name=Ada\norderNumber=1042'}
            helperText="One per line: name=value"
            value={varsText}
            onChange={(e) => setVarsText(e.target.value)}
            multiline
            minRows={2}
            size="small"
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={send.isPending}>
          Cancel
        </Button>
        <Button variant="contained" onClick={submit} disabled={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
