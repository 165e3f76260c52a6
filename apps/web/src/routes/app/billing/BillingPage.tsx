import { useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import LinearProgress from '@mui/material/LinearProgress';
import Skeleton from '@mui/material/Skeleton';
import type { ChargeDto } from '@layerline/contracts';
import { useBillingSettings, useCharges } from '../../../api/payments.ts';
import { useAuth } from '../../../app/auth/AuthProvider.tsx';
import { CursorPager } from '../../../components/CursorPager.tsx';
import { PageHeading } from '../../../components/PageHeading.tsx';
import { useCursorPages } from '../../../components/use-cursor-pages.ts';
import { BillingAlerts, CardOnFile, TestModeChip } from './BillingSummary.tsx';
import { ChargeCardDialog } from './ChargeCardDialog.tsx';
import { ChargesTable } from './ChargesTable.tsx';
import { RefundChargeDialog } from './RefundChargeDialog.tsx';
import { WalletPanel } from './WalletPanel.tsx';

const PAGE_SIZE = 25;

/**
 * /billing: the seller's charges and refunds, newest first, with the card they are charged to.
 * Admins see every seller's charges, or one seller's with `?targetUserId=` (and `&orderId=` from an
 * order), where they can charge the stored card by hand and refund a paid charge.
 */
export default function BillingPage() {
  const { user, isAdmin } = useAuth();
  const [searchParams, setSearchParams] = useSearchParams();
  const targetUserId = (isAdmin && searchParams.get('targetUserId')) || undefined;
  const orderId = searchParams.get('orderId') || undefined;
  const forSeller = targetUserId !== undefined && targetUserId !== user?.id;
  const everyone = isAdmin && targetUserId === undefined;

  const pages = useCursorPages(JSON.stringify([targetUserId, orderId]));
  const charges = useCharges({ targetUserId, orderId, cursor: pages.cursor, limit: PAGE_SIZE });
  const [charging, setCharging] = useState<number | null>(null);
  const [refunding, setRefunding] = useState<ChargeDto | null>(null);
  const items = charges.data?.items;
  const sellerName = items?.[0]?.sellerName ?? 'the seller';

  const showAllOrders = () =>
    setSearchParams((current) => {
      const next = new URLSearchParams(current);
      next.delete('orderId');
      return next;
    });

  return (
    <Box>
      <PageHeading
        title="Billing"
        subtitle={
          everyone
            ? 'Charges and refunds of every seller, newest first. Open a seller’s from their order to charge their card.'
            : forSeller
              ? `Charges and refunds of ${sellerName}, newest first.`
              : 'What each order cost you, charged once to your card when it went into production, and any refunds.'
        }
        actions={
          forSeller && targetUserId ? (
            <Button variant="contained" onClick={() => setCharging((count) => (count ?? 0) + 1)}>
              Charge card
            </Button>
          ) : everyone ? null : (
            <Button variant="outlined" component={RouterLink} to="/account-settings#billing">
              Change card
            </Button>
          )
        }
      />
      {everyone ? null : <CardSummary targetUserId={targetUserId} own={!forSeller} />}
      {everyone ? null : <WalletPanel targetUserId={targetUserId} own={!forSeller} isAdmin={isAdmin} />}
      {orderId ? (
        <Alert
          severity="info"
          sx={{ mb: 2 }}
          action={
            <Button color="inherit" size="small" onClick={showAllOrders}>
              Show all
            </Button>
          }
        >
          Only the charges of {items?.[0]?.orderNumber ? `order ${items[0].orderNumber}` : 'one order'}.
        </Alert>
      ) : null}
      {charges.isFetching ? <LinearProgress sx={{ mb: 1 }} /> : null}
      {charges.isError ? <Alert severity="error">{charges.error.message}</Alert> : null}
      {items && items.length === 0 && pages.pageNumber === 1 ? (
        <Alert severity="info" data-testid="no-charges">
          {orderId
            ? 'This order has not been charged.'
            : 'No charges yet. Each order is charged once, when it goes into production.'}
        </Alert>
      ) : null}
      {items && items.length > 0 ? (
        <Card variant="outlined">
          <ChargesTable
            charges={items}
            showSeller={everyone}
            orderHref={(id) => (isAdmin ? `/admin-orders?order=${id}` : `/orders?order=${id}`)}
            canAuthenticate={(charge) => charge.ownerId === user?.id}
            onRefund={isAdmin ? setRefunding : undefined}
          />
        </Card>
      ) : null}
      <CursorPager pages={pages} nextCursor={charges.data?.nextCursor} label="Pages of charges" />
      {charging !== null && targetUserId ? (
        <ChargeCardDialog
          key={charging}
          targetUserId={targetUserId}
          sellerName={sellerName}
          initialOrderId={orderId ?? ''}
          onClose={() => setCharging(null)}
        />
      ) : null}
      {refunding ? <RefundChargeDialog charge={refunding} onClose={() => setRefunding(null)} /> : null}
    </Box>
  );
}

/** The card the charges go to, test mode, and what waits on the seller. */
function CardSummary({ targetUserId, own }: { targetUserId: string | undefined; own: boolean }) {
  const settings = useBillingSettings(targetUserId);
  if (settings.isPending) return <Skeleton variant="rounded" height={72} sx={{ mb: 2 }} />;
  if (settings.isError) return <Alert severity="error" sx={{ mb: 2 }}>{settings.error.message}</Alert>;
  const data = settings.data;
  return (
    <Card variant="outlined" sx={{ mb: 2 }} data-testid="billing-card-summary">
      <CardContent sx={{ display: 'grid', gap: 1.5 }}>
        <Box sx={{ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: 2, flexWrap: 'wrap' }}>
          <CardOnFile card={data.card} />
          <TestModeChip testMode={data.testMode} />
        </Box>
        <BillingAlerts settings={data} own={own} />
      </CardContent>
    </Card>
  );
}
