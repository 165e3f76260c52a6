import { useEffect, useRef, useState } from 'react';
import { Link as RouterLink, useLocation } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Skeleton from '@mui/material/Skeleton';
import Typography from '@mui/material/Typography';
import type { StoredCardDto } from '@layerline/contracts';
import { useBillingSettings } from '../../../api/payments.ts';
import { useToast } from '../../../app/toast/ToastProvider.tsx';
import { BillingAlerts, CardForm, CardOnFile, TestModeChip } from '../billing/BillingSummary.tsx';
import { cardLine, plural } from '../billing/charge-format.ts';

/**
 * Account settings → Billing: the card each order is charged to when it goes into production, the
 * form to add or replace it (Stripe Elements, or the sandbox's test form without Stripe keys), and
 * what waits on payment.
 */
export function BillingSection() {
  const settings = useBillingSettings();
  const { showToast } = useToast();
  const [formOpen, setFormOpen] = useState(false);
  const [saved, setSaved] = useState<StoredCardDto | null>(null);
  const data = settings.data;
  const section = useRef<HTMLElement>(null);
  const { hash } = useLocation();

  // Links to change the card ("/account-settings#billing") land on this section.
  useEffect(() => {
    if (hash === '#billing' && data) section.current?.scrollIntoView({ block: 'start' });
  }, [hash, data]);

  function onSaved(card: StoredCardDto) {
    setSaved(card);
    setFormOpen(false);
    showToast(`Card saved: ${cardLine(card)}`);
  }

  const showForm = data !== undefined && (formOpen || data.card === null);
  return (
    <Card component="section" aria-label="Billing" data-testid="billing-section" id="billing" ref={section}>
      <CardContent sx={{ p: { xs: 2.5, sm: 3 } }}>
        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, flexWrap: 'wrap' }}>
          <Typography variant="h6" component="h2">
            Billing
          </Typography>
          {data ? <TestModeChip testMode={data.testMode} /> : null}
        </Box>
        <Typography variant="body2" color="text.secondary" sx={{ mb: 2.5 }}>
          You pay only when you sell: each order is charged to this card once, when it goes into production.{' '}
          <RouterLink to="/billing">See your charges</RouterLink>
        </Typography>
        {settings.isPending ? <Skeleton variant="rounded" height={56} /> : null}
        {settings.isError ? <Alert severity="error">{settings.error.message}</Alert> : null}
        {data ? (
          <Box sx={{ display: 'grid', gap: 2 }}>
            {!data.chargesOrders ? (
              <Alert severity="info">Orders are not charged on this server yet; your card is kept for when they are.</Alert>
            ) : null}
            {saved ? (
              <Alert severity="success" onClose={() => setSaved(null)} data-testid="card-saved">
                Card saved: {cardLine(saved)}.
                {saved.releasedOrders > 0 ? ` ${plural(saved.releasedOrders, 'order')} released and charged again.` : ''}
              </Alert>
            ) : null}
            <BillingAlerts settings={data} own />
            <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 2, flexWrap: 'wrap' }}>
              <CardOnFile card={data.card} />
              {data.card && !formOpen ? (
                <Button variant="outlined" onClick={() => setFormOpen(true)}>
                  Replace card
                </Button>
              ) : null}
            </Box>
            {showForm ? (
              <CardForm
                settings={data}
                onSaved={onSaved}
                onCancel={data.card ? () => setFormOpen(false) : undefined}
              />
            ) : null}
          </Box>
        ) : null}
      </CardContent>
    </Card>
  );
}
